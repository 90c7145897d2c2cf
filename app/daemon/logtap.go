package daemon

import (
	"encoding/json"
	"net"
	"strconv"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/proxy"
)

// logTap is a sandbox proxy's log writer: it notes the last refused host
// in the registry and appends the record to the daemon's shared log.
type logTap struct {
	d  *Daemon
	sb *sandbox
}

func (t *logTap) Write(b []byte) (int, error) {
	var r proxy.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return len(b), nil
	}
	if r.Decision == proxy.Deny && r.Host != "" && r.Host != proxy.OwnHost {
		host := net.JoinHostPort(r.Host, strconv.Itoa(int(r.Port)))
		t.d.mu.Lock()
		t.sb.info.LastBlocked = host
		t.sb.info.LastBlockedAt = r.Time
		t.d.mu.Unlock()
		t.d.publish(t.sb, apitype.EventBlocked, host, false)
	}
	t.d.log.Write(r)
	return len(b), nil
}
