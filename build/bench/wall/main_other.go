//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench: the wall benchmark runs on Linux (it measures bwrap)")
	os.Exit(1)
}
