package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLogForgedLines(t *testing.T) {
	var buf syncBuffer
	l := NewLog(&buf)
	evil := "a.com\n{\"decision\":\"allow\",\"host\":\"x\"}\r\x00\u2028\x1b[2J"
	l.Write(Record{Time: time.Now(), Sandbox: "s", Proto: ProtoSOCKS5, Host: evil, Decision: Deny, Rule: "bad host", Error: evil})
	l.Write(Record{Time: time.Now(), Sandbox: "s", Proto: ProtoHTTP, Host: "\xff\xfe", Decision: Deny})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), buf.String())
	}
	recs := buf.records(t)
	if recs[0].Host != evil || recs[0].Decision != Deny {
		t.Fatalf("round trip: %+v", recs[0])
	}
	for _, c := range []string{"\r", "\x00", "\x1b"} {
		if strings.Contains(buf.String(), c) {
			t.Fatalf("raw control character %q in the log", c)
		}
	}
}

// The secret never reaches the log, whatever a client does with it.
func TestSecretNotInLog(t *testing.T) {
	dir := t.TempDir()
	lg, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := startProxy(t, loopPolicy(t), nil)
	e.p.cfg.Log = lg
	_, port := upstream(t, hello())
	c := e.client(testID, testSecret)
	get(t, c, "http://web.lnk.test:"+port+"/"+testSecret+"?q="+testSecret)
	get(t, c, "http://u:"+testSecret+"@web.lnk.test:"+port+"/")
	get(t, c, "http://"+testSecret+".lnk.test:"+port+"/") // the secret as a name is logged: the sandbox chose to send it there
	get(t, e.client(testID, testSecret+"x"), "http://web.lnk.test:"+port+"/")
	get(t, e.client(testSecret, testSecret), "http://web.lnk.test:"+port+"/")
	get(t, c, "http://lnk.sandbox/health")
	rawRequest(t, e.tcp, "CONNECT "+testSecret+":80 HTTP/1.1\r\nHost: x\r\n"+authHeader()+"\r\n")
	rawRequest(t, e.tcp, "CONNECT web.lnk.test HTTP/1.1\r\nHost: x\r\nProxy-Authorization: Basic "+testSecret+"\r\n\r\n")
	socksDial(t, "tcp", e.tcp, testID, testSecret+"!", "web.lnk.test", 80)
	socksDial(t, "tcp", e.tcp, testSecret, testSecret, "web.lnk.test", 80)
	e.p.Close()
	lg.Close()
	b, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" {
			continue
		}
		n++
		if strings.Contains(line, testSecret) && !strings.Contains(line, `"host":"`+strings.ToLower(testSecret)+`.lnk.test"`) {
			t.Errorf("the secret is in the log: %s", line)
		}
	}
	if n < 8 {
		t.Fatalf("only %d records:\n%s", n, b)
	}
	st, _ := os.Stat(filepath.Join(dir, LogFile))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v", st.Mode())
	}
}

func TestLogRotateAndRead(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.max = 2000
	var wg sync.WaitGroup
	const writers, each = 8, 25
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				l.Write(Record{Time: time.Now(), Sandbox: "s" + strconv.Itoa(w), Proto: ProtoHTTP, Host: fmt.Sprintf("h%d.example", i), Decision: Allow})
			}
		}()
	}
	wg.Wait()
	if _, err := os.Stat(filepath.Join(dir, LogFile+".1")); err != nil {
		t.Fatalf("no rotation: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LogFile+".5")); err == nil {
		t.Fatal("more rotated files than kept")
	}
	var got []Record
	err = ReadLog(context.Background(), dir, Filter{}, false, func(r Record) error { got = append(got, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) > writers*each {
		t.Fatalf("read %d records", len(got))
	}
	last := map[string]int{}
	for _, r := range got { // each writer's records come back in its order
		var i int
		fmt.Sscanf(r.Host, "h%d.example", &i)
		if prev, ok := last[r.Sandbox]; ok && i != prev+1 {
			t.Fatalf("%s: record %d after %d", r.Sandbox, i, prev)
		}
		last[r.Sandbox] = i
	}
	stop := errors.New("stop")
	if err := ReadLog(context.Background(), dir, Filter{}, false, func(Record) error { return stop }); err != stop {
		t.Fatalf("fn's error not returned: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ReadLog(context.Background(), filepath.Join(dir, "missing"), Filter{}, false, func(Record) error { return stop }); err != nil {
		t.Fatal(err)
	}
}

// Following: new records, across rotations, reach the reader in order.
func TestLogFollow(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan Record, 100)
	done := make(chan error, 1)
	go func() {
		done <- ReadLog(ctx, dir, Filter{Sandbox: "follow", Decision: Deny}, true, func(r Record) error { ch <- r; return nil })
	}()
	time.Sleep(300 * time.Millisecond)
	l.mu.Lock()
	l.max = 8000
	l.mu.Unlock()
	for i := 0; i < 40; i++ {
		if i%10 == 9 {
			time.Sleep(3 * followPoll / 2)
		}
		l.Write(Record{Time: time.Now(), Sandbox: "follow", Decision: Deny, Host: strconv.Itoa(i), Rule: strings.Repeat("r", 100)})
		l.Write(Record{Time: time.Now(), Sandbox: "follow", Decision: Allow})
	}
	for i := 0; i < 40; i++ {
		select {
		case r := <-ch:
			if r.Host != strconv.Itoa(i) {
				t.Fatalf("followed record %d is %q", i, r.Host)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("followed only %d records", i)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LogFile+".1")); err != nil {
		t.Fatalf("the log did not rotate while followed: %v", err)
	}
}
