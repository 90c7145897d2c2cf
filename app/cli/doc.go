// Package cli is the lnk command line: one file per verb, built with cobra
// (nested verbs, help and shell completions for free, and the most common
// choice in Go CLIs, so harness authors know its conventions).
//
// The CLI is thin. Verbs that run nothing (spec, permissions) use the spec
// package directly; everything else talks to the daemon through
// app/client. It never links the tray, dialogs, proxy or bridges.
//
// `enter` is an SSH session's verb (an OpenSSH forced command) and the
// only one whose sandbox keeps the caller's terminal session, for job
// control. Choices it makes where the design is silent: --folder is
// required (sshd starts sessions in the home folder); a login shell is
// `$SHELL -l` (never argv[0] "-sh", which the wall would have to look up);
// sshd's internal-sftp, which a forced command receives as
// SSH_ORIGINAL_COMMAND, becomes the system's sftp-server run inside;
// SSH_ORIGINAL_COMMAND itself is not passed in; and the session never
// registers its terminal as a place to ask questions, since the sandbox
// reads that terminal's input too.
//
// Exit codes: a wrapped command's own code is mirrored by `run`; lnk's own
// failures exit with ExitUsage (2) for a bad command line, ExitInvalid (1)
// for a spec or input that does not check out, and ExitFailure (125) when
// lnk itself could not do what was asked. Every failure prints one line
// "lnk: <what went wrong>: <what to do>" on stderr.
package cli
