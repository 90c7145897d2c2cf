package safesocket

import (
	"fmt"
	"strings"
)

// PipeSDDL returns the security descriptor of the Windows control pipe:
// protected (no inherited entries), full access for the user's SID alone,
// and nothing for anyone else, network logons included (no entry grants
// them). sid must look like "S-1-5-21-…".
func PipeSDDL(sid string) (string, error) {
	if !strings.HasPrefix(sid, "S-1-") || strings.ContainsAny(sid, "();: \t\r\n") {
		return "", fmt.Errorf("safesocket: %q is not a user SID", sid)
	}
	return "O:" + sid + "D:P(A;;GA;;;" + sid + ")", nil
}

// PipeName returns the control pipe's name for a user (by SID), so two
// users' daemons never meet.
func PipeName(sid string) string {
	return `\\.\pipe\lnk-sandbox-` + sid
}
