package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestTrayIcons(t *testing.T) {
	seen := map[string]TrayState{}
	for _, s := range []TrayState{TrayIdle, TrayRunning, TrayPaused, TrayQuestion} {
		for _, f := range []string{FormatPNG, FormatICO, FormatTemplate} {
			b := TrayIcon(s, f)
			if len(b) == 0 {
				t.Fatalf("no %s icon for %v", f, s)
			}
			if prev, dup := seen[string(b)]; dup {
				t.Errorf("%s icon of %v is the same as %v's", f, s, prev)
			}
			seen[string(b)] = s
			switch f {
			case FormatICO:
				if !bytes.HasPrefix(b, []byte{0, 0, 1, 0, 2, 0}) {
					t.Errorf("%v ico: bad header % x", s, b[:6])
				}
			default:
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil || img.Bounds().Dx() != 32 {
					t.Errorf("%v %s: %v %v", s, f, err, img)
				}
			}
		}
	}
	if TrayIcon(TrayIdle, "gif") != nil || TrayIcon(TrayState(9), FormatPNG) != nil {
		t.Error("unknown format or state gave an icon")
	}
}
