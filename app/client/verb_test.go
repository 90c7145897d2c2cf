package client

import "testing"

func TestDaemonVerb(t *testing.T) {
	tests := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", nil, "daemon"},
		{"linux", map[string]string{"DISPLAY": ":0"}, "daemon"},
		{"linux", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus"}, "daemon"},
		{"linux", map[string]string{"DISPLAY": ":0", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/b"}, "tray"},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/b"}, "tray"},
		{"linux", map[string]string{"DISPLAY": ":0", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/b", "LNK_NO_TRAY": "1"}, "daemon"},
		{"darwin", nil, "tray"},
		{"darwin", map[string]string{"SSH_CONNECTION": "1 2 3 4"}, "daemon"},
		{"windows", nil, "tray"},
	}
	for _, tt := range tests {
		if got := DaemonVerb(func(k string) string { return tt.env[k] }, tt.goos); got != tt.want {
			t.Errorf("%s %v: %s, want %s", tt.goos, tt.env, got, tt.want)
		}
	}
}
