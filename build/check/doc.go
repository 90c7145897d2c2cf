// Package check holds the repository's structural gates as tests: the
// dependency fence of DESIGN.md (which package may link which) and the rule
// that every package has exactly one package doc comment. It has no code of
// its own.
package check
