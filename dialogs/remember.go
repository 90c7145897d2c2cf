package dialogs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Remembered is one "always" answer: requests with Key from sandboxes of
// Scope are allowed without asking.
type Remembered struct {
	Scope string    `json:"scope"`
	Key   string    `json:"key"`
	Since time.Time `json:"since"`
}

// rememberStore keeps the "always" answers, in a file when it has one.
type rememberStore struct {
	file string
	mu   sync.Mutex
	list []Remembered
}

// maxRemembered bounds the file, so a sandbox cannot grow it without end
// (each entry still needs the person's "always").
const maxRemembered = 4096

func openRemember(file string) (*rememberStore, error) {
	rs := &rememberStore{file: file}
	if file == "" {
		return rs, nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return rs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remembered answers: %w", err)
	}
	if err := json.Unmarshal(b, &rs.list); err != nil {
		return nil, fmt.Errorf("remembered answers: %s is damaged (%v): fix it or remove it (every \"always\" is then forgotten)", file, err)
	}
	return rs, nil
}

func (rs *rememberStore) has(scope, key string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.list {
		if r.Scope == scope && r.Key == key {
			return true
		}
	}
	return false
}

func (rs *rememberStore) add(scope, key string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.list {
		if r.Scope == scope && r.Key == key {
			return nil
		}
	}
	if len(rs.list) >= maxRemembered {
		return fmt.Errorf("%d answers are remembered already: forget some with `lnk sandbox answer --forget`", len(rs.list))
	}
	rs.list = append(rs.list, Remembered{Scope: scope, Key: key, Since: time.Now().UTC()})
	return rs.saveLocked()
}

func (rs *rememberStore) all() []Remembered {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := append([]Remembered(nil), rs.list...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Scope != out[j].Scope {
			return out[i].Scope < out[j].Scope
		}
		return out[i].Key < out[j].Key
	})
	return out
}

func (rs *rememberStore) forget(scope, key string) (int, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	keep := rs.list[:0]
	n := 0
	for _, r := range rs.list {
		if (scope == "" || r.Scope == scope) && (key == "" || r.Key == key) {
			n++
			continue
		}
		keep = append(keep, r)
	}
	rs.list = keep
	if n == 0 {
		return 0, nil
	}
	return n, rs.saveLocked()
}

// saveLocked writes the list atomically (a temporary file renamed over).
func (rs *rememberStore) saveLocked() error {
	if rs.file == "" {
		return nil
	}
	b, err := json.MarshalIndent(rs.list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(rs.file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(rs.file), ".remembered-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), rs.file)
}
