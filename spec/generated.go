package spec

import _ "embed"

// SchemaJSON is the spec's JSON Schema, generated from the Spec type and
// its comments (`lnk sandbox spec --schema`).
//
//go:embed schema.json
var SchemaJSON []byte

// KeysMarkdown is the table of the spec's keys, generated from the Spec
// type and its comments (`lnk sandbox spec --keys`).
//
//go:embed keys.md
var KeysMarkdown []byte
