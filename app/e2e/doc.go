// Package e2e holds lnk's end-to-end tests: they build the real lnk
// binary and drive it as a person or a harness would, with real bwrap,
// the real daemon and proxy, real curl and sockets, in a fresh HOME and
// XDG_RUNTIME_DIR per test. Every daemon a test starts is killed by pid
// when the test ends. Without bwrap (or curl, socat, OpenSSH's sshd and
// clients) the tests skip on a developer's machine and fail in CI. The SSH
// tests run a private sshd on 127.0.0.1 (own host key, config and
// authorized_keys), stopped by pid.
package e2e
