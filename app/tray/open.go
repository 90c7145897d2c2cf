package tray

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/ncruces/zenity"
)

// openPath opens a file or folder with the desktop's program for it.
func openPath(path string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", path)
	case "windows":
		cmd = exec.Command("explorer", path)
	default:
		cmd = exec.Command("xdg-open", path)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s: %w (install xdg-utils)", path, err)
	}
	go cmd.Wait()
	return nil
}

// confirm asks a yes/no question in a dialog; No is the default button.
// It returns false when no dialog can be shown.
func confirm(title, text, yes, no string) bool {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return false
	}
	err := zenity.Question(text, zenity.Title(title), zenity.OKLabel(yes), zenity.CancelLabel(no),
		zenity.DefaultCancel(), zenity.WarningIcon)
	return err == nil
}
