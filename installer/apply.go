package installer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// record is what install wrote, kept in Plan.Record: uninstall removes
// exactly this.
type record struct {
	Version int          `json:"version"`
	Files   []recordFile `json:"files"`
	Links   []Link       `json:"links,omitempty"`
	Run     []RunValue   `json:"run,omitempty"`
	Dirs    []string     `json:"dirs,omitempty"` // folders install created
}

type recordFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func readRecord(path string) (*record, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("the install record %s is damaged (%v): remove what it lists by hand, then the record", path, err)
	}
	return &r, nil
}

func (r *record) hasFile(path string) bool {
	return r != nil && slices.ContainsFunc(r.Files, func(f recordFile) bool { return f.Path == path })
}

// Install carries out p: copies the binary, writes the files and links,
// sets the Run values, and records it all in p.Record. It says what it
// did on out, one line each. Running it again changes nothing that is
// already right. A file in the way that lnk did not write is refused,
// not overwritten.
func Install(p *Plan, out io.Writer) error {
	old, err := readRecord(p.Record)
	if err != nil {
		return err
	}
	rec := &record{Version: 1}
	if old != nil {
		rec.Dirs = old.Dirs
	}
	mkdir := func(dir string) error {
		made, err := mkdirAll(dir)
		for _, d := range made {
			if !slices.Contains(rec.Dirs, d) {
				rec.Dirs = append(rec.Dirs, d)
			}
		}
		return err
	}
	if p.CopyFrom != "" {
		bin, err := os.ReadFile(p.CopyFrom)
		if err != nil {
			return fmt.Errorf("install: read the lnk program: %w", err)
		}
		f := File{Path: p.Binary, Data: bin, Mode: 0o755, What: "the lnk program (copied from " + p.CopyFrom + ")"}
		if err := writeFile(f, old, mkdir, out); err != nil {
			return err
		}
		rec.Files = append(rec.Files, recordFile{f.Path, sum(bin)})
	} else {
		fmt.Fprintf(out, "uses      %s where it is\n", p.Binary)
		if old.hasFile(p.Binary) {
			// Run from the copy an earlier install made: it stays
			// recorded, so uninstall still removes it.
			if b, err := os.ReadFile(p.Binary); err == nil {
				rec.Files = append(rec.Files, recordFile{p.Binary, sum(b)})
			}
		}
	}
	for _, f := range p.Files {
		if err := writeFile(f, old, mkdir, out); err != nil {
			return err
		}
		rec.Files = append(rec.Files, recordFile{f.Path, sum(f.Data)})
	}
	for _, l := range p.Links {
		if err := makeLink(l, old, mkdir, out); err != nil {
			return err
		}
		rec.Links = append(rec.Links, l)
	}
	for _, v := range p.Run {
		changed, err := setRunValue(v.Name, v.Command)
		if err != nil {
			return fmt.Errorf(`install: HKCU\%s: %w`, RunKey, err)
		}
		say(out, changed, `HKCU\`+RunKey+`\`+v.Name, v.What)
		rec.Run = append(rec.Run, v)
	}
	if old != nil {
		dropStale(old, rec, out)
	}
	if err := mkdir(filepath.Dir(p.Record)); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	if err := writeAtomic(p.Record, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("install: record what was installed: %w", err)
	}
	fmt.Fprintf(out, "recorded  %s (what 'lnk sandbox uninstall' removes)\n", p.Record)
	for _, n := range p.Notes {
		fmt.Fprintf(out, "note      %s\n", n)
	}
	return nil
}

func say(out io.Writer, changed bool, what, why string) {
	verb := "unchanged"
	if changed {
		verb = "wrote    "
	}
	fmt.Fprintf(out, "%s %s: %s\n", verb, what, why)
}

// writeFile writes f unless it holds f's data already. A file that is
// there, differs, and is not in the old record is not lnk's: refused.
func writeFile(f File, old *record, mkdir func(string) error, out io.Writer) error {
	cur, err := os.ReadFile(f.Path)
	switch {
	case err == nil && bytes.Equal(cur, f.Data):
		os.Chmod(f.Path, fs.FileMode(f.Mode))
		say(out, false, f.Path, f.What)
		return nil
	case err == nil && !old.hasFile(f.Path):
		return fmt.Errorf("install: %s is there already and lnk did not write it: move it away and install again", f.Path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("install: %w", err)
	}
	if err := mkdir(filepath.Dir(f.Path)); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	if err := writeAtomic(f.Path, f.Data, fs.FileMode(f.Mode)); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	say(out, true, f.Path, f.What)
	return nil
}

func makeLink(l Link, old *record, mkdir func(string) error, out io.Writer) error {
	cur, err := os.Readlink(l.Path)
	if err == nil && cur == l.Target {
		say(out, false, l.Path, l.What)
		return nil
	}
	if _, lerr := os.Lstat(l.Path); lerr == nil {
		mine := old != nil && slices.ContainsFunc(old.Links, func(x Link) bool { return x.Path == l.Path })
		if !mine {
			return fmt.Errorf("install: %s is there already and lnk did not make it: move it away and install again", l.Path)
		}
		if err := os.Remove(l.Path); err != nil {
			return fmt.Errorf("install: %w", err)
		}
	}
	if err := mkdir(filepath.Dir(l.Path)); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	if err := os.Symlink(l.Target, l.Path); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	say(out, true, l.Path+" -> "+l.Target, l.What)
	return nil
}

// dropStale removes what an earlier install wrote that this one does not
// (another autostart choice, another bin folder).
func dropStale(old, now *record, out io.Writer) {
	var stale record
	for _, f := range old.Files {
		if !now.hasFile(f.Path) {
			stale.Files = append(stale.Files, f)
		}
	}
	for _, l := range old.Links {
		if !slices.ContainsFunc(now.Links, func(x Link) bool { return x.Path == l.Path }) {
			stale.Links = append(stale.Links, l)
		}
	}
	for _, v := range old.Run {
		if !slices.ContainsFunc(now.Run, func(x RunValue) bool { return x.Name == v.Name }) {
			stale.Run = append(stale.Run, v)
		}
	}
	removeRecorded(&stale, out)
}

// Uninstall removes exactly what the install recorded in recordPath
// said it wrote, and the folders it created when they are empty, then
// the record. A file changed since is left in place, and said so.
// Without a record there is nothing to do.
func Uninstall(recordPath string, out io.Writer) error {
	rec, err := readRecord(recordPath)
	if err != nil {
		return err
	}
	if rec == nil {
		fmt.Fprintf(out, "nothing to remove: no install is recorded (%s)\n", recordPath)
		return nil
	}
	removeRecorded(rec, out)
	if err := os.Remove(recordPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("uninstall: %w", err)
	}
	fmt.Fprintf(out, "removed   %s\n", recordPath)
	dirs := append([]string(nil), rec.Dirs...)
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) }) // deepest first
	for _, d := range dirs {
		if os.Remove(d) == nil { // only when empty
			fmt.Fprintf(out, "removed   %s (a folder install created, now empty)\n", d)
		}
	}
	return nil
}

func removeRecorded(rec *record, out io.Writer) {
	for _, f := range rec.Files {
		cur, err := os.ReadFile(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(out, "gone      %s (removed already)\n", f.Path)
		case err != nil:
			fmt.Fprintf(out, "kept      %s: %v\n", f.Path, err)
		case sum(cur) != f.SHA256:
			fmt.Fprintf(out, "kept      %s: changed since install; remove it yourself if you do not want it\n", f.Path)
		default:
			if err := os.Remove(f.Path); err != nil {
				fmt.Fprintf(out, "kept      %s: %v\n", f.Path, err)
			} else {
				fmt.Fprintf(out, "removed   %s\n", f.Path)
			}
		}
	}
	for _, l := range rec.Links {
		if cur, err := os.Readlink(l.Path); err == nil && cur == l.Target {
			os.Remove(l.Path)
			fmt.Fprintf(out, "removed   %s\n", l.Path)
		} else {
			fmt.Fprintf(out, "gone      %s (removed or changed already)\n", l.Path)
		}
	}
	for _, v := range rec.Run {
		removed, err := deleteRunValue(v.Name, v.Command)
		switch {
		case err != nil:
			fmt.Fprintf(out, `kept      HKCU\%s\%s: %v`+"\n", RunKey, v.Name, err)
		case removed:
			fmt.Fprintf(out, `removed   HKCU\%s\%s`+"\n", RunKey, v.Name)
		default:
			fmt.Fprintf(out, `gone      HKCU\%s\%s (removed or changed already)`+"\n", RunKey, v.Name)
		}
	}
}

// mkdirAll makes dir and returns the folders it created, outermost
// first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(missing)
	var made []string
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		}
		made = append(made, d)
	}
	return made, nil
}

// writeAtomic writes a file through a temporary one renamed into place,
// so a crash never leaves half a program or entry.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
