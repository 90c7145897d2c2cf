// Package cli is the lnk command line: one file per verb, built with cobra
// (nested verbs, help and shell completions for free, and the most common
// choice in Go CLIs, so harness authors know its conventions).
//
// The CLI is thin. Verbs that run nothing (spec, permissions) use the spec
// package directly; everything else talks to the daemon through
// app/client. It never links the tray, dialogs, proxy or bridges.
//
// Exit codes: a wrapped command's own code is mirrored by `run`; lnk's own
// failures exit with ExitUsage (2) for a bad command line, ExitInvalid (1)
// for a spec or input that does not check out, and ExitFailure (125) when
// lnk itself could not do what was asked. Every failure prints one line
// "lnk: <what went wrong>: <what to do>" on stderr.
package cli
