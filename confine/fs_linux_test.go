package confine

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"lnk.dev/sandbox/build/testenv"

	"lnk.dev/sandbox/spec"
)

// mustFail runs each shell command in one sandbox and fails the test for
// every one that succeeded.
func (b *box) mustFail(t *testing.T, cmds map[string]string) {
	t.Helper()
	var names []string
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	var sc strings.Builder
	sc.WriteString("cd " + b.folder + "\n")
	for _, n := range names {
		sc.WriteString("if ( " + cmds[n] + " ) >/dev/null 2>&1; then echo 'ALLOWED " + n + "'; else echo 'denied " + n + "'; fi\n")
	}
	r := b.sh(sc.String())
	if r.code != 0 {
		t.Fatalf("script: %+v", r)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.HasPrefix(line, "ALLOWED") {
			t.Errorf("%s", line)
		}
	}
	if got := strings.Count(r.stdout, "\n"); got != len(names) {
		t.Fatalf("expected %d results, got: %s", len(names), r.stdout)
	}
}

// mustPass runs each command and fails for every one that failed.
func (b *box) mustPass(t *testing.T, cmds map[string]string) {
	t.Helper()
	for n, c := range cmds {
		cmds[n] = "! ( " + c + " )"
	}
	b.mustFail(t, cmds)
}

func TestSecretsHidden(t *testing.T) {
	b := newBox(t)
	b.mustFail(t, map[string]string{
		"read ssh key":      "grep -q PRIVATE ~/.ssh/id_ed25519",
		"list ssh":          "test -n \"$(ls -A ~/.ssh)\"",
		"read via symlink":  "ln -s ~/.ssh/id_ed25519 key && grep -q PRIVATE key",
		"read via /proc":    "grep -rqs PRIVATE /proc/1/root/" + b.home + "/.ssh",
		"read via hardlink": "ln ~/.ssh/id_ed25519 key2 && grep -q PRIVATE key2",
	})
}

func TestWritesOutsideDenied(t *testing.T) {
	b := newBox(t)
	b.mustFail(t, map[string]string{
		"overwrite home file": "echo x > ~/notes.txt",
		"create in home":      "touch ~/new",
		"create in /etc":      "touch /etc/lnk-test",
		"symlink out":         "ln -s ~/notes.txt out && echo x >> out",
		"hard link out":       "ln ~/notes.txt hl",
		"rename out":          "mv ~/notes.txt ./stolen",
		"rename in":           "echo x > f && mv f ~/f",
		"remove home file":    "rm -f ~/notes.txt && test ! -e ~/notes.txt",
		"chmod home file":     "chmod 777 ~/notes.txt",
	})
	if data, _ := os.ReadFile(filepath.Join(b.home, "notes.txt")); string(data) != "home notes" {
		t.Fatalf("home file changed: %q", data)
	}
}

func TestAllowedReadsAndWrites(t *testing.T) {
	b := newBox(t)
	b.mustPass(t, map[string]string{
		"read home":       "grep -q 'home notes' ~/notes.txt",
		"write folder":    "echo hi > a.txt && grep -q hi a.txt",
		"mkdir in folder": "mkdir -p d/e && touch d/e/f",
		"rename inside":   "echo x > r1 && mv r1 r2",
		"write tmp":       "echo x > /tmp/x && grep -q x /tmp/x",
		"TMPDIR":          "test \"$TMPDIR\" = /tmp",
		"dev null":        "echo x > /dev/null",
	})
	if data, err := os.ReadFile(filepath.Join(b.folder, "a.txt")); err != nil || string(data) != "hi\n" {
		t.Fatalf("write did not reach the folder: %q %v", data, err)
	}
}

func TestDenyWriteAndDenyRead(t *testing.T) {
	b := newBox(t)
	b.spec = `[filesystem]
allow_write = ["."]
deny_write = ["locked.txt", "gen/out", "missing-dir"]
deny_read = ["secret.txt", "private", "absent.txt"]
allow_read = ["private/public.txt"]
`
	writeFile(t, filepath.Join(b.folder, "locked.txt"), "locked")
	writeFile(t, filepath.Join(b.folder, "gen", "out", "x"), "gen")
	writeFile(t, filepath.Join(b.folder, "secret.txt"), "SECRET")
	writeFile(t, filepath.Join(b.folder, "private", "key"), "SECRET")
	writeFile(t, filepath.Join(b.folder, "private", "public.txt"), "public")
	b.mustFail(t, map[string]string{
		"write denied file":       "echo x > locked.txt",
		"remove denied file":      "rm -f locked.txt && test ! -e locked.txt",
		"rename denied file":      "mv locked.txt other",
		"replace denied file":     "echo x > n && mv n locked.txt",
		"write in denied dir":     "touch gen/out/y",
		"create missing denied":   "mkdir missing-dir/x || echo x > missing-dir",
		"read hidden file":        "grep -q SECRET secret.txt",
		"read hidden dir":         "grep -rq SECRET private",
		"create missing hidden":   "echo x > absent.txt && grep -q x absent.txt",
		"write re-allowed":        "echo x > private/public.txt",
		"create in hidden dir":    "touch private/new",
		"read reallowed is empty": "! grep -q public private/public.txt",
	})
	data, _ := os.ReadFile(filepath.Join(b.folder, "locked.txt"))
	if string(data) != "locked" {
		t.Fatalf("deny_write file changed: %q", data)
	}
	assertNoLitter(t, b.folder, []string{"gen", "gen/out", "gen/out/x", "locked.txt", "n", "private",
		"private/key", "private/public.txt", "secret.txt"})
}

// protectedCases are the mandatory protected names, each tried new and
// existing.
func protectedCases() (files, dirs []string) {
	for _, n := range spec.ProtectedNames {
		if dirNames[n] {
			dirs = append(dirs, n)
		} else {
			files = append(files, n)
		}
	}
	return files, dirs
}

func TestProtectedNamesCannotBeCreated(t *testing.T) {
	testenv.NeedCommand(t, "git", "git")
	b := newBox(t)
	writeFile(t, filepath.Join(b.folder, "evil"), "echo pwned")
	files, dirs := protectedCases()
	cmds := map[string]string{}
	for _, n := range files {
		cmds["create "+n] = "mkdir -p $(dirname " + n + ") && echo pwned > " + n
		cmds["rename onto "+n] = "cp evil e2 && mkdir -p $(dirname " + n + ") && mv e2 " + n
		cmds["symlink "+n] = "mkdir -p $(dirname " + n + ") && ln -s evil " + n
		cmds["hardlink "+n] = "mkdir -p $(dirname " + n + ") && ln evil " + n
	}
	for _, n := range dirs {
		cmds["create in "+n] = "mkdir -p " + n + " && echo pwned > " + n + "/x"
		cmds["rename dir onto "+n] = "mkdir -p d/x && mkdir -p $(dirname " + n + ") && mv d " + n + " && test -e " + n + "/x"
	}
	// In a folder with no .git, git must be able to write .git/config to
	// create a repository (see doc.go): that case is TestGitInitAndCommit.
	for _, n := range []string{"create .git/config", "rename onto .git/config", "symlink .git/config", "hardlink .git/config"} {
		delete(cmds, n)
	}
	b.mustFail(t, cmds)
	assertNoLitter(t, b.folder, []string{"evil", "e2", "d", "d/x"})
}

func TestProtectedNamesInNewRepository(t *testing.T) {
	testenv.NeedCommand(t, "git", "git")
	b := newBox(t)
	b.mustFail(t, map[string]string{
		"hook in new repo":     "git init -q && echo pwned > .git/hooks/pre-commit",
		"hooks dir replaced":   "git init -q && mv .git/hooks .git/h2",
		"move .git away":       "git init -q && mv .git .git-old",
		"remove .git":          "rm -rf .git && test ! -e .git",
		"replace .git by file": "rm -rf .git; echo 'gitdir: /tmp' > .git",
	})
	// A repository with no config: creating one is refused.
	if out, err := execIn(b.folder, "git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.Remove(filepath.Join(b.folder, ".git", "config"))
	os.RemoveAll(filepath.Join(b.folder, ".git", "hooks"))
	b.mustFail(t, map[string]string{
		"create config": "echo '[core]' > .git/config",
		"create hooks":  "mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
		"rename onto":   "echo x > c && mv c .git/config",
	})
}

func TestProtectedNamesExistingStayReadOnly(t *testing.T) {
	b := newBox(t)
	files, dirs := protectedCases()
	for _, n := range files {
		writeFile(t, filepath.Join(b.folder, n), "original")
		writeFile(t, filepath.Join(b.folder, "sub", n), "original")
	}
	for _, n := range dirs {
		writeFile(t, filepath.Join(b.folder, n, "x"), "original")
	}
	writeFile(t, filepath.Join(b.folder, "evil"), "echo pwned")
	cmds := map[string]string{}
	for _, n := range files {
		for _, p := range []string{n, "sub/" + n} {
			cmds["write "+p] = "echo pwned >> " + p
			cmds["truncate "+p] = ": > " + p
			cmds["remove "+p] = "rm -f " + p + " && test ! -e " + p
			cmds["replace "+p] = "cp evil e2 && mv e2 " + p
		}
	}
	for _, n := range dirs {
		cmds["write in "+n] = "echo pwned > " + n + "/x"
		cmds["add to "+n] = "echo pwned > " + n + "/new"
		cmds["rename "+n] = "mv " + n + " moved"
	}
	cmds["rename .git"] = "mv .git gone"
	cmds["rename .claude"] = "mv .claude gone"
	b.mustFail(t, cmds)
	for _, n := range files {
		for _, p := range []string{n, "sub/" + n} {
			if data, _ := os.ReadFile(filepath.Join(b.folder, p)); string(data) != "original" {
				t.Errorf("%s changed: %q", p, data)
			}
		}
	}
}

func TestGitInitAndCommit(t *testing.T) {
	testenv.NeedCommand(t, "git", "git")
	b := newBox(t)
	r := b.sh(`set -e; cd ` + b.folder + `
git init -q
git config user.email a@example.com
git config user.name A
git config core.hooksPath /tmp
git config alias.st '!touch /tmp/pwned'
echo one > f.txt
git add -A
git commit -qm one
git log --oneline | wc -l
git status --porcelain`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Fatalf("git in the sandbox: %+v", r)
	}
	cfg, err := os.ReadFile(filepath.Join(b.folder, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "hooksPath") || strings.Contains(string(cfg), "alias") || !strings.Contains(string(cfg), "repositoryformatversion") {
		t.Fatalf("new repository's config was not tidied:\n%s", cfg)
	}
	if _, err := os.Stat(filepath.Join(b.folder, ".git", "hooks")); err == nil {
		t.Fatalf("the hooks placeholder was left behind")
	}
	// The repository works outside, with the person's git.
	out, err := execIn(b.folder, "git", "log", "--format=%s")
	if err != nil || strings.TrimSpace(out) != "one" {
		t.Fatalf("git log outside: %q %v", out, err)
	}
	// A second run commits again: the repository now exists.
	r = b.sh("cd " + b.folder + " && echo two >> f.txt && git -c user.email=a@b -c user.name=A commit -qam two && git log --oneline | wc -l")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "2" {
		t.Fatalf("second commit: %+v", r)
	}
	b.mustFail(t, map[string]string{
		"write existing config": "echo '[core] hooksPath=/tmp' >> .git/config",
		"add a hook":            "echo pwned > .git/hooks/pre-commit",
	})
}

func TestNoLitterWhenNothingChanges(t *testing.T) {
	b := newBox(t)
	writeFile(t, filepath.Join(b.folder, "a"), "a")
	if r := b.sh("ls -A " + b.folder + " >/dev/null"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	assertNoLitter(t, b.folder, []string{"a"})
}

// assertNoLitter fails unless dir holds exactly want (relative paths).
func assertNoLitter(t *testing.T, dir string, want []string) {
	t.Helper()
	var got []string
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "victim.bin" {
			return nil
		}
		got = append(got, rel)
		return nil
	})
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("folder after the run:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func execIn(dir, name string, args ...string) (string, error) {
	c := exec.Command(name, args...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	return string(out), err
}

// TestNewRepoConfigLinkNotFollowed: a config the sandbox made a link to a
// secret is removed, never read into the folder or onto stderr.
func TestNewRepoConfigLinkNotFollowed(t *testing.T) {
	testenv.NeedCommand(t, "git", "git")
	b := newBox(t)
	writeFile(t, filepath.Join(b.folder, "plain"), "PRIVATE KEY")
	r := b.sh("cd " + b.folder + " && git init -q && rm -f .git/config && ln -s " + b.home + "/.ssh/id_ed25519 .git/config")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if strings.Contains(r.stderr, "PRIVATE") {
		t.Fatalf("a secret reached stderr: %s", r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(b.folder, ".git", "config")); err == nil {
		t.Fatal("the linked config was left")
	}
	r = b.sh("cd " + b.folder + " && rm -f .git/config && ln plain .git/config")
	if strings.Contains(r.stderr, "PRIVATE") {
		t.Fatalf("a hard-linked file reached stderr: %s", r.stderr)
	}
}

// TestNewRepositoriesTidiedAfterRun: git folders the sandbox makes deeper
// in the folder, or as new submodules, keep nothing that runs code.
func TestNewRepositoriesTidiedAfterRun(t *testing.T) {
	testenv.NeedCommand(t, "git", "git")
	b := newBox(t)
	writeFile(t, filepath.Join(b.folder, "top", "a.txt"), "a")
	if out, err := execIn(b.folder, "git", "init", "-q"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	r := b.sh(`set -e; cd ` + b.folder + `
mkdir -p sub && cd sub && git init -q && git config core.fsmonitor 'touch /tmp/x' && echo '#!/bin/sh' > .git/hooks/post-checkout && cd ..
mkdir -p evil/hooks sub2 && echo 'ref: refs/heads/main' > evil/HEAD && printf '[core]\n\tfsmonitor = x\n' > evil/config && echo x > evil/hooks/pre-commit
echo 'gitdir: ../evil' > sub2/.git
mkdir -p .git/modules/m/hooks && echo 'ref: refs/heads/main' > .git/modules/m/HEAD && printf '[core]\n\tsshCommand = x\n' > .git/modules/m/config && echo x > .git/modules/m/hooks/pre-push
`)
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, p := range []string{"sub/.git/hooks/post-checkout", "evil/hooks/pre-commit", ".git/modules/m/hooks/pre-push"} {
		if _, err := os.Lstat(filepath.Join(b.folder, p)); err == nil {
			t.Errorf("%s was left", p)
		}
	}
	for _, p := range []string{"sub/.git/config", "evil/config", ".git/modules/m/config"} {
		data, _ := os.ReadFile(filepath.Join(b.folder, p))
		if strings.Contains(string(data), "fsmonitor") || strings.Contains(string(data), "sshCommand") {
			t.Errorf("%s kept what runs code:\n%s", p, data)
		}
	}
	if !strings.Contains(r.stderr, "tidied") {
		t.Errorf("no note on stderr: %s", r.stderr)
	}
	// The sample hooks of an existing repository are left alone.
	if _, err := os.Stat(filepath.Join(b.folder, ".git", "hooks", "pre-commit.sample")); err != nil {
		t.Errorf("the existing repository's samples were touched: %v", err)
	}
}

// TestDeepProtectedNamesBlockedAfterRun: protected names created deeper
// than the top of the folder are renamed when the sandbox ends.
func TestDeepProtectedNamesBlockedAfterRun(t *testing.T) {
	b := newBox(t)
	writeFile(t, filepath.Join(b.folder, "sub", ".npmrc"), "existing")
	writeFile(t, filepath.Join(b.folder, "sub", "keep.txt"), "keep")
	r := b.sh(`set -e; cd ` + b.folder + `
echo 'eval evil' > sub/.envrc
mkdir -p sub/deeper/.vscode && echo '{}' > sub/deeper/.vscode/tasks.json
mkdir -p sub/.claude/commands && echo x > sub/.claude/commands/x.md
echo fine > sub/notes.txt`)
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, p := range []string{"sub/.envrc", "sub/deeper/.vscode", "sub/.claude/commands"} {
		if _, err := os.Lstat(filepath.Join(b.folder, p)); err == nil {
			t.Errorf("%s is still there", p)
		}
		if _, err := os.Lstat(filepath.Join(b.folder, p+".lnk-blocked")); err != nil {
			t.Errorf("%s was not kept as .lnk-blocked: %v", p, err)
		}
	}
	for p, want := range map[string]string{"sub/.npmrc": "existing", "sub/keep.txt": "keep", "sub/notes.txt": "fine\n"} {
		if data, _ := os.ReadFile(filepath.Join(b.folder, p)); string(data) != want {
			t.Errorf("%s: %q, want %q", p, data, want)
		}
	}
	if !strings.Contains(r.stderr, "lnk-blocked") {
		t.Errorf("no note on stderr: %s", r.stderr)
	}
}
