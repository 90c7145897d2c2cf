// Package e2e holds lnk's end-to-end tests: they build the real lnk
// binary and drive it as a person or a harness would, with real bwrap,
// the real daemon and proxy, real curl and sockets, in a fresh HOME and
// XDG_RUNTIME_DIR per test. Every daemon a test starts is killed by pid
// when the test ends. Without bwrap (or curl, socat) the tests skip on a
// developer's machine and fail in CI.
package e2e
