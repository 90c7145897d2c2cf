// Package assets holds lnk's icons, embedded in the binary. The PNGs in
// icons/ are drawn by internal/gen (go generate ./assets), so they can be
// reviewed as code and regenerated at any size.
package assets
