package spec

import (
	_ "embed"
)

// DefaultTOML is the spec used when none is given: the folder writable, a
// private /tmp, home's secrets and lnk's own dirs hidden, programs from the
// system, the folder and the usual per-user tool folders, no hosts. Asking
// the person (to open a page, to answer a question) is allowed, since each
// of those asks first.
//
//go:embed default.toml
var DefaultTOML []byte

// ExampleTOML is a commented example spec showing every key
// (`lnk sandbox spec --example`).
//
//go:embed example.toml
var ExampleTOML []byte

// Default returns the parsed default spec.
func Default() *Spec {
	s, err := Parse("default", DefaultTOML)
	if err != nil {
		panic("spec: the embedded default spec does not parse: " + err.Error())
	}
	return s
}
