package dialogs

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/build/testenv"
)

// needScreen skips (fails in CI) unless a display, zenity, xdotool and
// ImageMagick's import are there (CI runs the tests under xvfb-run).
func needScreen(t testing.TB) {
	t.Helper()
	testenv.NeedEnv(t, "DISPLAY", "run the tests under xvfb-run (apt install xvfb xauth)")
	testenv.NeedCommand(t, "zenity", "zenity")
	testenv.NeedCommand(t, "xdotool", "xdotool")
	testenv.NeedCommand(t, "import", "imagemagick")
	t.Setenv("NO_AT_BRIDGE", "1")
}

// findWindow polls for a window whose name contains title, every 20 ms.
func findWindow(t testing.TB, title string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", title).Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			return f[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no window %q appeared within %v", title, within)
	return ""
}

func windowGone(title string, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", title).Output()
		if len(bytes.TrimSpace(out)) == 0 {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// screenshot saves the screen in $LNK_ARTIFACTS (or the test's folder)
// and checks that something is drawn on it.
func screenshot(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("LNK_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, name+".png")
	if out, err := exec.Command("import", "-window", "root", file).CombinedOutput(); err != nil {
		t.Fatalf("import: %v: %s", err, out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	if colours(img) < 3 {
		t.Fatalf("screenshot %s shows nothing drawn", file)
	}
	t.Logf("screenshot: %s", file)
}

func colours(img image.Image) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if len(seen) > 16 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

func press(t *testing.T, wid, key string) {
	t.Helper()
	if out, err := exec.Command("xdotool", "windowfocus", "--sync", wid, "key", key).CombinedOutput(); err != nil {
		t.Fatalf("xdotool key %s: %v: %s", key, err, out)
	}
}

// TestZenityDialog shows real dialogs and answers each with a key, as a
// person would: each choice reaches the caller, closing and Enter deny.
func TestZenityDialog(t *testing.T) {
	needScreen(t)
	for _, tc := range []struct {
		name, key string
		want      Choice
	}{
		{"allow", "alt+a", AllowOnce},
		{"always", "alt+w", AllowAlways},
		{"deny", "alt+d", Deny},
		{"close", "Escape", Deny},
		{"enter-is-deny", "Return", Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, rec := newTestAsker(t, Config{Dialog: &Zenity{}, Timeout: 30 * time.Second})
			q := testQuestion("zen" + tc.name)
			q.Sandbox.Name = "agent-" + tc.name
			done := make(chan Answer, 1)
			go func() { done <- a.Ask(context.Background(), q) }()
			wid := findWindow(t, "lnk sandbox: agent-"+tc.name+" asks", 15*time.Second)
			if tc.name == "allow" {
				screenshot(t, "dialog-question")
			}
			press(t, wid, tc.key)
			select {
			case ans := <-done:
				if ans.Choice != tc.want || ans.Via != ViaDialog {
					t.Fatalf("answer %+v, want %s by dialog", ans, tc.want)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("no answer after the key")
			}
			if n := len(rec.answers()); n != 1 {
				t.Fatalf("%d answers recorded", n)
			}
		})
	}
}

// TestZenityTimeout leaves a dialog unanswered: it is a deny, and the
// dialog is taken off the screen.
func TestZenityTimeout(t *testing.T) {
	needScreen(t)
	a, _ := newTestAsker(t, Config{Dialog: &Zenity{}, Timeout: 2 * time.Second})
	q := testQuestion("zentimeout")
	q.Sandbox.Name = "agent-timeout"
	done := make(chan Answer, 1)
	go func() { done <- a.Ask(context.Background(), q) }()
	findWindow(t, "lnk sandbox: agent-timeout asks", 15*time.Second)
	ans := <-done
	if ans.Choice != Deny || ans.Via != ViaTimeout {
		t.Fatalf("answer %+v, want a timeout deny", ans)
	}
	if !windowGone("lnk sandbox: agent-timeout asks", 5*time.Second) {
		t.Fatal("the dialog stayed on the screen after the timeout")
	}
}

// BenchmarkDialogOnScreen measures the time from a question to its dialog
// on the screen (then answers it with Deny).
func BenchmarkDialogOnScreen(b *testing.B) {
	needScreen(b)
	a, err := New(Config{Dialog: &Zenity{}, Timeout: 30 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for i := 0; i < b.N; i++ {
		q := testQuestion("bench")
		q.Sandbox.Name = "bench"
		done := make(chan Answer, 1)
		start := time.Now()
		go func() { done <- a.Ask(context.Background(), q) }()
		wid := ""
		for wid == "" {
			select {
			case ans := <-done:
				b.Fatalf("question %d answered before its dialog showed: %+v", i, ans)
			default:
			}
			if time.Since(start) > 15*time.Second {
				b.Fatalf("question %d: no dialog within 15s; pending: %+v", i, a.PendingViews())
			}
			out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "lnk sandbox: bench asks").Output()
			if f := strings.Fields(string(out)); len(f) > 0 {
				wid = f[0]
			} else {
				time.Sleep(20 * time.Millisecond)
			}
		}
		total += time.Since(start)
		exec.Command("xdotool", "windowfocus", "--sync", wid, "key", "alt+d").Run()
		<-done
		windowGone("lnk sandbox: bench asks", 5*time.Second)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/on-screen")
}

// BenchmarkZenityBare is the floor for BenchmarkDialogOnScreen: the
// zenity program started directly, until its window is on the screen.
func BenchmarkZenityBare(b *testing.B) {
	needScreen(b)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		cmd := exec.Command("zenity", "--question", "--title", "bare zenity", "--text", "x")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		wid := findWindow(b, "bare zenity", 15*time.Second)
		total += time.Since(start)
		exec.Command("xdotool", "windowfocus", "--sync", wid, "key", "Escape").Run()
		cmd.Wait()
		windowGone("bare zenity", 5*time.Second)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/on-screen")
}
