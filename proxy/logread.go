package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Filter selects log records. Zero fields select everything.
type Filter struct {
	Sandbox  string    // only this sandbox
	Decision string    // only Allow or only Deny
	Since    time.Time // only records that began at or after Since
}

// Match reports whether r passes the filter.
func (f Filter) Match(r *Record) bool {
	return (f.Sandbox == "" || r.Sandbox == f.Sandbox) &&
		(f.Decision == "" || r.Decision == f.Decision) &&
		(f.Since.IsZero() || !r.Time.Before(f.Since))
}

// followPoll is how often ReadLog looks for new lines when following.
const followPoll = 200 * time.Millisecond

// ReadLog calls fn for every record in the log folder dir that passes f,
// oldest first (rotated files, then the current one). With follow it then
// waits for new records, across rotations, until ctx ends or fn returns an
// error. A line that does not parse is skipped. A follower that falls more
// than one whole file behind (a file filled in less than 200 ms) misses
// the files in between. A missing folder is an
// empty log.
func ReadLog(ctx context.Context, dir string, f Filter, follow bool, fn func(Record) error) error {
	base := filepath.Join(dir, LogFile)
	for i := defaultLogKeep; i >= 1; i-- {
		if err := readFile(fmt.Sprintf("%s.%d", base, i), f, fn); err != nil {
			return err
		}
	}
	file, err := os.Open(base)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("proxy log: %w", err)
	}
	if file == nil && !follow {
		return nil
	}
	defer func() {
		if file != nil {
			file.Close()
		}
	}()
	var br *lineReader
	if file != nil {
		br = &lineReader{r: file}
	}
	for {
		if br != nil {
			if err := readLines(br, f, fn); err != nil {
				return err
			}
		}
		if !follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(followPoll):
		}
		if rotated(file, base) { // finish the old file, then take the new one
			if br != nil {
				if err := readLines(br, f, fn); err != nil {
					return err
				}
				file.Close()
			}
			file, br = nil, nil
			if nf, err := os.Open(base); err == nil {
				file, br = nf, &lineReader{r: nf}
			}
		}
	}
}

// rotated reports whether the file at path is no longer open (renamed away
// or not opened yet).
func rotated(open *os.File, path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if open == nil {
		return true
	}
	ost, err := open.Stat()
	return err != nil || !os.SameFile(st, ost)
}

func readFile(path string, f Filter, fn func(Record) error) error {
	file, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("proxy log: %w", err)
	}
	defer file.Close()
	return readLines(&lineReader{r: file}, f, fn)
}

// lineReader yields whole lines from a file that may still be growing; a
// partial last line (a write in progress) waits for the next call.
type lineReader struct {
	r   io.Reader
	buf []byte // read but not yet returned
}

const maxLine = 64 << 10

// next returns the next whole line, or ok false when none is complete yet.
func (lr *lineReader) next() (line []byte, ok bool, err error) {
	for {
		if i := bytes.IndexByte(lr.buf, '\n'); i >= 0 {
			line, lr.buf = lr.buf[:i], lr.buf[i+1:]
			return line, true, nil
		}
		if len(lr.buf) > maxLine { // longer than any record: drop it
			lr.buf = lr.buf[:0]
		}
		chunk := make([]byte, 32<<10)
		n, rerr := lr.r.Read(chunk)
		lr.buf = append(lr.buf, chunk[:n]...)
		if rerr == io.EOF || (n == 0 && rerr == nil) {
			return nil, false, nil
		}
		if rerr != nil {
			return nil, false, fmt.Errorf("proxy log: %w", rerr)
		}
	}
}

// readLines hands every complete line that parses and passes f to fn.
func readLines(lr *lineReader, f Filter, fn func(Record) error) error {
	for {
		line, ok, err := lr.next()
		if err != nil || !ok {
			return err
		}
		var r Record
		if json.Unmarshal(line, &r) != nil || !f.Match(&r) {
			continue
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}
