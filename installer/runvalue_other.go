//go:build !windows

package installer

import "errors"

var errNoRegistry = errors.New("the registry is Windows's: this plan is for another system")

func setRunValue(name, command string) (bool, error)    { return false, errNoRegistry }
func deleteRunValue(name, command string) (bool, error) { return false, errNoRegistry }
