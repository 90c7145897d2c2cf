package installer

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// setRunValue sets the Run value name to command; it reports whether it
// changed anything.
func setRunValue(name, command string) (bool, error) {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, RunKey, registry.QUERY_VALUE|registry.SET_VALUE)
	if err != nil {
		return false, err
	}
	defer k.Close()
	if cur, _, err := k.GetStringValue(name); err == nil && cur == command {
		return false, nil
	}
	return true, k.SetStringValue(name, command)
}

// deleteRunValue deletes the Run value name if it still is command.
func deleteRunValue(name, command string) (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, RunKey, registry.QUERY_VALUE|registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer k.Close()
	cur, _, err := k.GetStringValue(name)
	if err != nil || cur != command {
		return false, nil
	}
	return true, k.DeleteValue(name)
}
