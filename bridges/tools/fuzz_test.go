package tools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
)

// FuzzReadLine: the framing returns exactly the non-blank lines of the
// input (without "\n" and a "\r" before it), and refuses only lines over
// the limit.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb", "a\r\n\r\nb\n", "  \n{}\n", strings.Repeat("x", 40) + "\ny", "\r", "a\rb\n"} {
		f.Add([]byte(s))
	}
	const max = 32
	f.Fuzz(func(t *testing.T, data []byte) {
		var want [][]byte
		tooLong := false
		for i, l := range bytes.Split(data, []byte("\n")) {
			if i == bytes.Count(data, []byte("\n")) && len(l) == 0 {
				break // after the last "\n"
			}
			if len(l) > max {
				tooLong = true
				break
			}
			l = bytes.TrimSuffix(l, []byte("\r"))
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			want = append(want, l)
		}
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		var got [][]byte
		for {
			l, err := readLine(br, max)
			if errors.Is(err, errLineTooLong) {
				if !tooLong {
					t.Fatalf("line too long reported, but no line is over %d: %q", max, data)
				}
				if len(got) > len(want) {
					t.Fatalf("got %q before the long line, want %q", got, want)
				}
				return
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, l)
		}
		if tooLong {
			t.Fatalf("a line over %d passed: %q", max, got)
		}
		if len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d: got %q, want %q", i, got[i], want[i])
			}
		}
	})
}

// FuzzParseMessage: whatever parses encodes to one line that parses to
// the same message, and encoding is stable.
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"a","METHOD":"b","method":"c","id":1.5e3}`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{ \"a\" :\t[1, 2] }}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := parseMessage(line)
		if err != nil {
			return
		}
		enc := m.encode()
		if bytes.IndexByte(enc, '\n') != len(enc)-1 {
			t.Fatalf("encoding %q is not one line", enc)
		}
		m2, err := parseMessage(enc[:len(enc)-1])
		if err != nil {
			t.Fatalf("re-parse of %q: %v", enc, err)
		}
		if m.kind != m2.kind || m.method != m2.method || !jsonEqual(m.id, m2.id) || !jsonEqual(m.params, m2.params) ||
			!jsonEqual(m.result, m2.result) || !jsonEqual(m.err, m2.err) {
			t.Fatalf("round trip changed %q into %q", line, enc)
		}
		if enc2 := m2.encode(); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable: %q then %q", enc, enc2)
		}
		if m.kind == kindRequest || m.kind == kindNotification {
			if !json.Valid(enc) {
				t.Fatalf("invalid JSON out: %q", enc)
			}
		}
	})
}

func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// echoProcess is a server in this process: it answers every request with
// its params as the result, under the id it saw.
func echoProcess() *process {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &process{name: "echo", in: inW, out: bufio.NewReader(outR), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer outW.Close()
		br := bufio.NewReader(inR)
		for {
			line, err := readLine(br, MaxLine)
			if err != nil {
				return
			}
			m, err := parseMessage(line)
			if err != nil || m.kind != kindRequest {
				continue
			}
			if _, err := outW.Write((&message{id: m.id, result: m.params}).encode()); err != nil {
				return
			}
		}
	}()
	return p
}

// FuzzRenumber drives the relay with three sessions sending requests
// whose ids collide within and across sessions, in every form JSON-RPC
// allows; each session must get an answer to each of its requests, with
// its own id exactly as sent, and never another session's.
func FuzzRenumber(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 0, 0, 0, 0, 1, 1, 2, 2})
	f.Add([]byte("shared: the same ids everywhere"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		if len(data) > 24 {
			data = data[:24]
		}
		shared := data[0]&1 == 1
		u := newUpstream(&Bridge{Grace: time.Second}, &Tool{Name: "echo", Idle: time.Hour}, shared)
		p := echoProcess()
		u.proc = p
		if shared {
			u.initRes = json.RawMessage(`{}`)
		}
		go u.readServer(p)
		nSessions := 3
		if !shared {
			nSessions = 1
		}
		type sent struct {
			id  string
			seq int
		}
		plans := make([][]sent, nSessions)
		for i, b := range data[1:] {
			s := int(b) % nSessions
			var id string
			switch (b >> 2) % 5 {
			case 0:
				id = fmt.Sprint(b >> 5)
			case 1:
				id = fmt.Sprintf(`"%d"`, b>>5)
			case 2:
				id = []string{"1.0", "-0", "1e2", "-7", "0"}[int(b>>5)%5]
			case 3:
				id = `"x\u0041\n"`
			case 4:
				id = fmt.Sprintf(`"lnk-%d"`, b>>5)
			}
			plans[s] = append(plans[s], sent{id, i})
		}
		done := make(chan struct{})
		defer close(done)
		errc := make(chan error, nSessions)
		for si := range nSessions {
			client, server := net.Pipe()
			sb := &bridges.Sandbox{Who: dialogs.Sandbox{ID: fmt.Sprint(si)}, Done: done, Log: func(proxy.Record) {}}
			s := newSession(u, sb, server, bufio.NewReader(server))
			go s.run()
			go func() {
				defer client.Close()
				go func() {
					for _, x := range plans[si] {
						fmt.Fprintf(client, `{"jsonrpc":"2.0","id":%s,"method":"echo","params":{"s":%d,"seq":%d}}`+"\n", x.id, si, x.seq)
					}
				}()
				want := map[int]string{}
				for _, x := range plans[si] {
					want[x.seq] = x.id
				}
				br := bufio.NewReader(client)
				client.SetReadDeadline(time.Now().Add(10 * time.Second))
				for range plans[si] {
					line, err := readLine(br, MaxLine)
					if err != nil {
						errc <- fmt.Errorf("session %d: %v", si, err)
						return
					}
					var r struct {
						ID     json.RawMessage `json:"id"`
						Result struct{ S, Seq int }
					}
					if err := json.Unmarshal(line, &r); err != nil {
						errc <- fmt.Errorf("session %d: %q: %v", si, line, err)
						return
					}
					if r.Result.S != si {
						errc <- fmt.Errorf("session %d got session %d's answer: %s", si, r.Result.S, line)
						return
					}
					id, ok := want[r.Result.Seq]
					if !ok || string(r.ID) != id {
						errc <- fmt.Errorf("session %d: answer %s: want id %s", si, line, id)
						return
					}
					delete(want, r.Result.Seq)
				}
				errc <- nil
			}()
		}
		for range nSessions {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
		u.shutdown()
	})
}
