//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"lnk.dev/sandbox/build/testenv"
)

// privateBus starts a session dbus-daemon of the test's own and returns
// its address; it is killed (by pid) when the test ends.
func privateBus(t *testing.T) string { return privateBusEnv(t, nil) }

// privateBusEnv starts the bus with env added to the test's (the
// environment of the services it starts on demand). The services it
// started are killed with it.
func privateBusEnv(t *testing.T, env []string) string {
	t.Helper()
	testenv.NeedCommand(t, "dbus-daemon", "dbus")
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() {
		kids := childrenOf(cmd.Process.Pid)
		cmd.Process.Kill()
		cmd.Wait()
		for _, pid := range kids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case addr := <-line:
		if addr == "" {
			t.Fatal("dbus-daemon printed no address")
		}
		return addr
	case <-time.After(10 * time.Second):
		t.Fatal("dbus-daemon did not start within 10s")
	}
	return ""
}

// childrenOf lists the pids whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// busConn connects to the bus at addr; closed when the test ends.
func busConn(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// own takes a well-known name on c, or fails the test.
func own(t *testing.T, c *dbus.Conn, name string) {
	t.Helper()
	r, err := c.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (reply %v)", name, err, r)
	}
}

// snWatcher is a test-owned org.kde.StatusNotifierWatcher: it records
// the items that register (their bus names).
type snWatcher struct {
	mu    sync.Mutex
	items []string
}

func (w *snWatcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	name := string(sender)
	if strings.HasPrefix(service, ":") || strings.Contains(service, ".") && !strings.HasPrefix(service, "/") {
		name = service
	}
	w.items = append(w.items, name)
	return nil
}

func (w *snWatcher) RegisterStatusNotifierHost(string) *dbus.Error { return nil }

// item waits (bounded) for the first registered item's bus name.
func (w *snWatcher) item(t *testing.T) string {
	t.Helper()
	for i := 0; i < 300; i++ {
		w.mu.Lock()
		n := len(w.items)
		var name string
		if n > 0 {
			name = w.items[n-1]
		}
		w.mu.Unlock()
		if name != "" {
			return name
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no StatusNotifierItem registered within 15s")
	return ""
}

// serveWatcher owns org.kde.StatusNotifierWatcher on the bus at addr.
func serveWatcher(t *testing.T, addr string) *snWatcher {
	t.Helper()
	c := busConn(t, addr)
	w := &snWatcher{}
	if err := c.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	own(t, c, "org.kde.StatusNotifierWatcher")
	return w
}

// notification is one captured desktop notification.
type notification struct{ Summary, Body string }

// notifyServer is a test-owned org.freedesktop.Notifications that
// captures what it is sent.
type notifyServer struct {
	mu   sync.Mutex
	got  []notification
	next uint32
}

func (n *notifyServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, notification{summary, body})
	n.next++
	return n.next, nil
}

func (n *notifyServer) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (n *notifyServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "lnk-test", "lnk", "1", "1.2", nil
}

func (n *notifyServer) CloseNotification(uint32) *dbus.Error { return nil }

// all returns the notifications so far.
func (n *notifyServer) all() []notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notification(nil), n.got...)
}

// count counts the notifications whose summary and body hold both parts.
func (n *notifyServer) count(summary, body string) int {
	c := 0
	for _, x := range n.all() {
		if strings.Contains(x.Summary, summary) && strings.Contains(x.Body, body) {
			c++
		}
	}
	return c
}

// wait waits (bounded) for a notification like count's.
func (n *notifyServer) wait(t *testing.T, summary, body string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if n.count(summary, body) > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no notification %q / %q within 10s; got %s", summary, body, fmt.Sprint(n.all()))
}

// serveNotifications owns org.freedesktop.Notifications on the bus.
func serveNotifications(t *testing.T, addr string) *notifyServer {
	t.Helper()
	c := busConn(t, addr)
	n := &notifyServer{}
	if err := c.Export(n, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	own(t, c, "org.freedesktop.Notifications")
	return n
}

// menuItem is a dbusmenu layout node.
type menuItem struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []menuItem
}

func (m menuItem) label() string {
	s, _ := m.Props["label"].Value().(string)
	return s
}

func (m menuItem) enabled() bool {
	e, ok := m.Props["enabled"].Value().(bool)
	return !ok || e
}

// find returns the first item (depth first) whose label has prefix.
func (m menuItem) find(prefix string) (menuItem, bool) {
	for _, c := range m.Children {
		if strings.HasPrefix(c.label(), prefix) {
			return c, true
		}
		if f, ok := c.find(prefix); ok {
			return f, true
		}
	}
	return menuItem{}, false
}

// labels lists the labels, depth first, children indented.
func (m menuItem) labels(indent string) []string {
	var out []string
	for _, c := range m.Children {
		if t, _ := c.Props["type"].Value().(string); t == "separator" {
			out = append(out, indent+"---")
			continue
		}
		if v, ok := c.Props["visible"].Value().(bool); ok && !v {
			continue
		}
		out = append(out, indent+c.label())
		out = append(out, c.labels(indent+"    ")...)
	}
	return out
}

// decodeLayout turns GetLayout's (ia{sv}av) into a menuItem.
func decodeLayout(v []any) menuItem {
	m := menuItem{ID: v[0].(int32), Props: v[1].(map[string]dbus.Variant)}
	for _, c := range v[2].([]dbus.Variant) {
		m.Children = append(m.Children, decodeLayout(c.Value().([]any)))
	}
	return m
}

// trayView reads a StatusNotifierItem over D-Bus.
type trayView struct {
	t    *testing.T
	conn *dbus.Conn
	name string
}

func (v *trayView) prop(name string) dbus.Variant {
	v.t.Helper()
	p, err := v.conn.Object(v.name, "/StatusNotifierItem").GetProperty("org.kde.StatusNotifierItem." + name)
	if err != nil {
		v.t.Fatalf("read %s: %v", name, err)
	}
	return p
}

func (v *trayView) tooltip() string {
	tt, ok := v.prop("ToolTip").Value().([]any)
	if !ok || len(tt) < 3 {
		v.t.Fatalf("ToolTip is %v", v.prop("ToolTip"))
	}
	s, _ := tt[2].(string)
	return s
}

// icon returns the IconPixmap's first image: width, height, ARGB bytes.
func (v *trayView) icon() (int32, int32, []byte) {
	px, ok := v.prop("IconPixmap").Value().([][]any)
	if !ok || len(px) == 0 || len(px[0]) != 3 {
		v.t.Fatalf("IconPixmap is %v", v.prop("IconPixmap"))
	}
	return px[0][0].(int32), px[0][1].(int32), px[0][2].([]byte)
}

// menu reads the whole menu. fyne.io/systray answers the first GetLayout
// after a change with one level only (for libdbusmenu's sake), so the
// layout is read again while a submenu comes without its children.
func (v *trayView) menu() menuItem {
	v.t.Helper()
	var m menuItem
	for i := 0; i < 5; i++ {
		var rev uint32
		var layout []any
		err := v.conn.Object(v.name, "/StatusNotifierItem/menu").Call("com.canonical.dbusmenu.GetLayout", 0,
			int32(0), int32(-1), []string{}).Store(&rev, &layout)
		if err != nil {
			v.t.Fatalf("GetLayout: %v", err)
		}
		if m = decodeLayout(layout); !m.truncated() {
			break
		}
	}
	return m
}

// truncated reports whether a submenu came without its children.
func (m menuItem) truncated() bool {
	for _, c := range m.Children {
		if d, _ := c.Props["children-display"].Value().(string); d == "submenu" && len(c.Children) == 0 || c.truncated() {
			return true
		}
	}
	return false
}

// click sends dbusmenu's "clicked" event to item id.
func (v *trayView) click(id int32) {
	v.t.Helper()
	err := v.conn.Object(v.name, "/StatusNotifierItem/menu").Call("com.canonical.dbusmenu.Event", 0,
		id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())).Err
	if err != nil {
		v.t.Fatalf("click %d: %v", id, err)
	}
}

// waitMenu polls the menu (bounded) until ok accepts it.
func (v *trayView) waitMenu(what string, ok func(menuItem) bool) menuItem {
	v.t.Helper()
	var m menuItem
	for i := 0; i < 300; i++ {
		if m = v.menu(); ok(m) {
			return m
		}
		time.Sleep(50 * time.Millisecond)
	}
	v.t.Fatalf("the menu never showed %s:\n%s", what, strings.Join(m.labels(""), "\n"))
	return m
}

// hasName reports whether name has an owner on c's bus.
func hasName(c *dbus.Conn, name string) bool {
	var ok bool
	return c.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&ok) == nil && ok
}
