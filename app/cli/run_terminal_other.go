//go:build !linux

package cli

import (
	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
)

// onTerminal: asking on run's terminal is built for Linux so far; other
// systems ask by dialog or on the queue.
func onTerminal(*cobra.Command) bool { return false }

func runOnTerminal(*apitype.WrapResponse) (bool, error) { return false, nil }
