//go:build linux

package main

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"lnk.dev/sandbox/build/bench/benchtls"
)

// world is one fresh home, runtime dir and folder, a built lnk, and the
// upstream servers every variant downloads from.
type world struct {
	dir, home, rt, work string
	lnk, srt, client    string
	lnkSpec, srtConf    string
	env                 []string
	httpURL, httpsURL   string
	servers             []*http.Server
}

func newWorld(o *options) (*world, error) {
	dir, err := os.MkdirTemp("/tmp", "lnk-compare")
	if err != nil {
		return nil, err
	}
	w := &world{dir: dir, home: filepath.Join(dir, "home"), rt: filepath.Join(dir, "run"), srt: abs(o.srt)}
	w.work = filepath.Join(w.home, "work")
	for _, d := range []string{w.home, w.rt, w.work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return w, err
		}
	}
	w.env = []string{"HOME=" + w.home, "XDG_RUNTIME_DIR=" + w.rt, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	w.lnk = o.lnk
	if w.lnk == "" {
		w.lnk = filepath.Join(dir, "lnk")
		build := exec.Command("go", "build", "-o", w.lnk, "lnk.dev/sandbox/app/lnk")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // static: each start is faster
		if out, err := build.CombinedOutput(); err != nil {
			return w, fmt.Errorf("go build lnk: %v\n%s", err, out)
		}
	}
	w.lnk = abs(w.lnk)
	if err := w.copyClient(); err != nil {
		return w, err
	}
	if err := w.writeConfigs(); err != nil {
		return w, err
	}
	return w, w.startServers()
}

// copyClient puts this program in the sandbox folder, where every sandbox
// may run it, as the latency client.
func (w *world) copyClient() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := os.Open(self)
	if err != nil {
		return err
	}
	defer in.Close()
	w.client = filepath.Join(w.work, "client")
	out, err := os.OpenFile(w.client, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeConfigs writes lnk's spec and srt's settings: the folder writable,
// the upstream on 127.0.0.1 reachable through each proxy.
func (w *world) writeConfigs() error {
	w.lnkSpec = filepath.Join(w.dir, "bench.toml")
	spec := "[filesystem]\nallow_write = [\".\"]\n[commands]\nallow = [\".\"]\n[network.lan]\nallow = [\"127.0.0.1\"]\n"
	if err := os.WriteFile(w.lnkSpec, []byte(spec), 0o600); err != nil {
		return err
	}
	w.srtConf = filepath.Join(w.dir, "srt.json")
	conf := `{"network":{"allowedDomains":["127.0.0.1"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}`
	return os.WriteFile(w.srtConf, []byte(conf), 0o600)
}

// startServers starts plain HTTP and HTTPS upstreams on 127.0.0.1 that
// serve /bulk?bytes=N and /small.
func (w *world) startServers() error {
	mux := http.NewServeMux()
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	mux.HandleFunc("/bulk", func(rw http.ResponseWriter, r *http.Request) {
		n, _ := strconv.ParseInt(r.URL.Query().Get("bytes"), 10, 64)
		rw.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		for n > 0 {
			k := min(n, int64(len(chunk)))
			if _, err := rw.Write(chunk[:k]); err != nil {
				return
			}
			n -= k
		}
	})
	mux.HandleFunc("/small", func(rw http.ResponseWriter, _ *http.Request) { io.WriteString(rw, "ok\n") })
	cert, err := benchtls.SelfSigned()
	if err != nil {
		return err
	}
	for _, secure := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		s := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		w.servers = append(w.servers, s)
		url := "http://" + ln.Addr().String()
		if secure {
			s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
			ln = tls.NewListener(ln, s.TLSConfig)
			url = "https://" + ln.Addr().String()
			w.httpsURL = url
		} else {
			w.httpURL = url
		}
		go s.Serve(ln)
	}
	return nil
}

// lnkCmd is `lnk sandbox run --spec bench.toml -- argv…` in the folder.
func (w *world) lnkCmd(argv ...string) *exec.Cmd {
	c := exec.Command(w.lnk, append([]string{"sandbox", "run", "--spec", w.lnkSpec, "--"}, argv...)...)
	c.Dir, c.Env = w.work, w.env
	return c
}

// srtCmd is `srt -s srt.json argv…` in the folder.
func (w *world) srtCmd(argv ...string) *exec.Cmd {
	c := exec.Command(w.srt, append([]string{"-s", w.srtConf}, argv...)...)
	c.Dir, c.Env = w.work, w.env
	return c
}

// hostShell, lnkShell and srtShell run a shell command line directly,
// through lnk, and through srt (whose -c takes the line as it is: srt joins
// argv into one line and loses positional arguments).
func (w *world) hostShell(line string) *exec.Cmd {
	c := exec.Command("sh", "-c", line)
	c.Dir, c.Env = w.work, w.env
	return c
}

func (w *world) lnkShell(line string) *exec.Cmd { return w.lnkCmd("sh", "-c", line) }

func (w *world) srtShell(line string) *exec.Cmd {
	c := exec.Command(w.srt, "-s", w.srtConf, "-c", line)
	c.Dir, c.Env = w.work, w.env
	return c
}

// daemonPID asks lnk for its daemon's pid (0 if none runs).
func (w *world) daemonPID() int {
	c := exec.Command(w.lnk, "sandbox", "status", "--json")
	c.Env = w.env
	out, err := c.Output()
	if err != nil {
		return 0
	}
	var st struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(out, &st) != nil {
		return 0
	}
	return st.PID
}

// stopDaemon stops lnk's daemon by pid: SIGTERM, then SIGKILL.
func (w *world) stopDaemon() {
	pid := w.daemonPID()
	if pid <= 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

func (w *world) close() {
	w.stopDaemon()
	for _, s := range w.servers {
		s.Close()
	}
	os.RemoveAll(w.dir)
}
