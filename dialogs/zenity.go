package dialogs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"

	"github.com/ncruces/zenity"
)

// Button labels of the dialog. The underscore marks each button's
// keyboard shortcut (Alt+A, Alt+W, Alt+D).
const (
	LabelOnce   = "_Allow once"
	LabelAlways = "Al_ways for this sandbox"
	LabelDeny   = "_Deny"
)

// Zenity shows questions as native dialogs: the zenity program on Linux,
// the system's own dialogs on macOS and Windows.
type Zenity struct {
	// IconFile is a PNG shown as the dialog's window icon; "" for none.
	IconFile string
	// Env is the environment that tells where the screen is (DISPLAY,
	// WAYLAND_DISPLAY); nil reads the process's own.
	Env func(string) string
}

// Available implements Dialog: on Linux a dialog needs a display and the
// zenity program; macOS and Windows always have their dialogs.
func (z *Zenity) Available() error {
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" {
		return nil
	}
	env := z.Env
	if env == nil {
		env = os.Getenv
	}
	if env("DISPLAY") == "" && env("WAYLAND_DISPLAY") == "" {
		return errors.New("no display: DISPLAY and WAYLAND_DISPLAY are not set")
	}
	if _, err := exec.LookPath("zenity"); err != nil {
		return errors.New("the zenity program is not installed (apt install zenity)")
	}
	return nil
}

// Show implements Dialog. Deny is the default button, so a stray Enter
// never allows anything; closing the window is Deny.
func (z *Zenity) Show(ctx context.Context, q *Question) (Choice, error) {
	opts := []zenity.Option{
		zenity.Context(ctx),
		zenity.Title(Title(q)),
		zenity.OKLabel(LabelOnce),
		zenity.CancelLabel(LabelDeny),
		zenity.DefaultCancel(),
		zenity.QuestionIcon,
	}
	if q.OffersAlways() {
		opts = append(opts, zenity.ExtraButton(LabelAlways))
	}
	if z.IconFile != "" {
		opts = append(opts, zenity.WindowIcon(z.IconFile))
	}
	err := zenity.Question(Text(q), opts...)
	switch {
	case ctx.Err() != nil:
		return Deny, ctx.Err()
	case err == nil:
		return AllowOnce, nil
	case errors.Is(err, zenity.ErrExtraButton):
		return AllowAlways, nil
	case errors.Is(err, zenity.ErrCanceled):
		return Deny, nil
	}
	return Deny, err
}
