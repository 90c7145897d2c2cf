// Package spec is the sandbox contract: the TOML spec a person writes, its
// strict parser, path resolution against a home and a folder, the grant
// algebra for files, and the network predicates (host patterns, LAN rules).
//
// It links nothing but the standard library and the TOML library, so every
// other part (the walls, the proxy, the bridges, the CLI) can import it and
// none of them can leak into it. A test fences that.
//
// The [Spec] type and its field comments are the single definition of the
// format: the JSON Schema (schema.json), the keys table (keys.md) and the
// README's table are generated from them by `go generate`, and tests fail
// when any of them drifts.
//
// Parsing is strict: unknown keys, wrong types and bad values are errors of
// type [*Error] naming file, line and key path. Resolution ([Resolve]) turns
// a parsed spec into a [Policy] of absolute, symlink-checked paths and
// compiled network rules; it is the only input the walls and the proxy take.
package spec

//go:generate go run ./internal/docgen/gen
