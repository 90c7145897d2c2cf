package tools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// MaxLine bounds one JSON-RPC message (one line) either way. A tool's
// result may carry an image as base64, hence the size.
const MaxLine = 32 << 20

// errLineTooLong is returned by readLine for a line over its limit.
var errLineTooLong = errors.New("a JSON-RPC message is longer than the limit")

// readLine returns the next line of br without its "\n" (and a "\r" before
// it), skipping blank lines. A last line without "\n" is returned at EOF;
// after it, io.EOF. A line over max bytes is errLineTooLong: the stream
// cannot be resynchronised, so the caller ends the session.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	for {
		var line []byte
		for {
			frag, err := br.ReadSlice('\n')
			if len(line)+len(frag) > max+1 { // +1: the "\n" itself
				return nil, errLineTooLong
			}
			line = append(line, frag...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && (err != io.EOF || len(line) == 0) {
				return nil, err
			}
			break
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > max { // blank or not: a line is bounded by its bytes
			return nil, errLineTooLong
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

// kind is what a message is.
type kind int

const (
	kindRequest      kind = iota // method and id: wants an answer
	kindNotification             // method, no id
	kindResponse                 // id and result or error
)

// message is one JSON-RPC 2.0 message, read strictly. Its fields are kept
// raw; encode writes only them, so what the relay passes on is exactly
// what it read and decided on: members other than JSON-RPC's, duplicate
// keys (the last one counts, as in JSON.parse) and differently cased keys
// are dropped, never passed to a parser that might read them otherwise.
type message struct {
	kind   kind
	id     json.RawMessage // a string or number; null only in error responses
	method string
	params json.RawMessage
	result json.RawMessage
	err    json.RawMessage
}

// parseError is a message that cannot be read; code is its JSON-RPC code.
type parseError struct {
	code int
	msg  string
	id   json.RawMessage // the id, when it could be read
}

func (e *parseError) Error() string { return e.msg }

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeInternal       = -32603
	// codeDenied is lnk's: the person (or the tool's settings) did not
	// allow the call.
	codeDenied = -32001
	// codeUnavailable is lnk's: the tool's server could not take the
	// request (it did not start, or exited).
	codeUnavailable = -32002
)

// parseMessage reads one line as a JSON-RPC 2.0 message. Batches (arrays)
// are refused: MCP no longer has them, and one line must be one decision.
func parseMessage(line []byte) (*message, error) {
	trimmed := bytes.TrimLeft(line, " \t\r")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, &parseError{code: codeInvalidRequest, msg: "JSON-RPC batches are not relayed: send one message per line"}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		return nil, &parseError{code: codeParse, msg: "not a JSON object"}
	}
	m := &message{id: fields["id"], params: fields["params"], result: fields["result"], err: fields["error"]}
	if m.id != nil && !validID(m.id, true) {
		return nil, &parseError{code: codeInvalidRequest, msg: "the id must be a string or a number"}
	}
	if v, ok := fields["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, &parseError{code: codeInvalidRequest, msg: `"jsonrpc" must be "2.0"`, id: m.id}
	}
	if raw, ok := fields["method"]; ok {
		if err := json.Unmarshal(raw, &m.method); err != nil || m.method == "" {
			return nil, &parseError{code: codeInvalidRequest, msg: "the method must be a string", id: m.id}
		}
		if m.result != nil || m.err != nil {
			return nil, &parseError{code: codeInvalidRequest, msg: "a request has no result or error", id: m.id}
		}
		if m.params != nil && !isObjectOrArray(m.params) {
			return nil, &parseError{code: codeInvalidRequest, msg: "params must be an object", id: m.id}
		}
		m.kind = kindNotification
		if m.id != nil {
			if string(m.id) == "null" {
				return nil, &parseError{code: codeInvalidRequest, msg: "a request's id must not be null"}
			}
			m.kind = kindRequest
		}
		return m, nil
	}
	if m.id == nil || (m.result == nil) == (m.err == nil) {
		return nil, &parseError{code: codeInvalidRequest, msg: "a message needs a method, or an id with one of result and error", id: m.id}
	}
	m.kind = kindResponse
	return m, nil
}

// validID reports whether raw is a string or number (or null, if
// nullOK).
func validID(raw json.RawMessage, nullOK bool) bool {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	switch v.(type) {
	case string, json.Number:
		return true
	case nil:
		return nullOK
	}
	return false
}

func isObjectOrArray(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// encode writes m as one line, "\n" included.
func (m *message) encode() []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if m.id != nil {
		b.WriteString(`,"id":`)
		compactInto(&b, m.id)
	}
	if m.method != "" {
		b.WriteString(`,"method":`)
		mb, _ := json.Marshal(m.method)
		b.Write(mb)
	}
	for _, f := range []struct {
		key string
		raw json.RawMessage
	}{{"params", m.params}, {"result", m.result}, {"error", m.err}} {
		if f.raw != nil {
			b.WriteString(`,"` + f.key + `":`)
			compactInto(&b, f.raw)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// compactInto writes raw without insignificant white space (so no line
// break can split a message). raw came from a JSON decoder, so it is valid;
// if it somehow is not, null is written.
func compactInto(b *bytes.Buffer, raw json.RawMessage) {
	if !bytes.ContainsAny(raw, " \t\r\n") {
		b.Write(raw)
		return
	}
	n := b.Len()
	if json.Compact(b, raw) != nil {
		b.Truncate(n)
		b.WriteString("null")
	}
}

// errorResponse is a JSON-RPC error answer to id.
func errorResponse(id json.RawMessage, code int, msg string, data any) *message {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	raw, _ := json.Marshal(e)
	if id == nil {
		id = json.RawMessage("null")
	}
	return &message{kind: kindResponse, id: id, err: raw}
}

// clip shortens s to n bytes for messages and logs.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
