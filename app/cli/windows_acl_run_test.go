package cli

import (
	"runtime"
	"strings"
	"testing"
)

// TestWindowsACLRunContract: every failure of the runner is one line
// "windows-acl-run: <detail>" and exit 127, with nothing of lnk's own
// format, and nothing runs.
func TestWindowsACLRunContract(t *testing.T) {
	cases := [][]string{
		{},
		{"--mode", "read-only"},
		{"--workspace", `C:\w`, "--temp", `C:\t`, "--mode", "rw", "--", "x"},
		{"--workspace", `C:\w`, "--temp", `C:\t`, "--mode", "read-only", "--write-sid", "S-1-4-1-2-3-4", "--", "x"},
		{"--workspace", `C:\w`, "--temp", `C:\t`, "--mode", "read-only", "--"},
	}
	if runtime.GOOS != "windows" {
		// A valid plan still cannot run outside Windows.
		cases = append(cases, []string{"--workspace", `C:\w`, "--temp", `C:\t`, "--mode", "read-only", "--", "x"})
	}
	for _, args := range cases {
		code, out, errOut := runCLI(t, append([]string{"lnk", "sandbox", "windows-acl-run"}, args...)...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 127 || out != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "windows-acl-run: ") {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want 127 and one windows-acl-run: line", args, code, out, errOut)
		}
	}
}
