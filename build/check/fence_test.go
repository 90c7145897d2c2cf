package check

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "lnk.dev/sandbox"

// deps returns, for every package of the module, its transitive non-test
// dependencies, and which import paths are in the standard library.
func deps(t *testing.T) (map[string][]string, map[string]bool) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{join .Deps \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	all := map[string][]string{}
	std := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		std[f[0]] = f[1] == "true"
		if strings.HasPrefix(f[0], module) {
			all[f[0]] = strings.Fields(f[2])
		}
	}
	return all, std
}

func under(pkg, prefix string) bool {
	p := module + "/" + prefix
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// TestDependencyFence enforces DESIGN.md's one-way dependencies.
func TestDependencyFence(t *testing.T) {
	all, std := deps(t)
	if len(all) == 0 {
		t.Fatal("go list found no packages")
	}
	for pkg, ds := range all {
		for _, d := range ds {
			if why := forbidden(pkg, d, std[d]); why != "" {
				t.Errorf("%s links %s: %s", pkg, d, why)
			}
		}
	}
}

// forbidden returns why pkg may not depend on dep, or "".
func forbidden(pkg, dep string, isStd bool) string {
	own := strings.HasPrefix(dep, module+"/")
	switch {
	case under(pkg, "spec") && !under(pkg, "spec/internal"):
		if !isStd && !strings.HasPrefix(dep, "github.com/BurntSushi/toml") && !under(dep, "spec") {
			return "spec links only the standard library and the TOML library"
		}
	case under(pkg, "confine"):
		if own && !under(dep, "spec") && !under(dep, "confine") {
			return "confine links only spec of the project's packages"
		}
	case under(pkg, "proxy"):
		if own && !under(dep, "spec") && !under(dep, "proxy") {
			return "proxy links only spec of the project's packages"
		}
	case under(pkg, "dialogs"):
		if own && !under(dep, "spec") && !under(dep, "dialogs") && !under(dep, "assets") {
			return "dialogs links only spec and assets of the project's packages"
		}
	case under(pkg, "bridges"):
		if own && !under(dep, "spec") && !under(dep, "proxy") && !under(dep, "dialogs") && !under(dep, "bridges") && !under(dep, "assets") {
			return "bridges link only proxy, dialogs, spec and assets"
		}
	case under(pkg, "app/cli"):
		for _, no := range []string{"proxy", "dialogs", "bridges", "app/tray", "app/daemon"} {
			if under(dep, no) {
				return "app/cli talks to the daemon only through app/client and never links " + no
			}
		}
	}
	if under(dep, "app/daemon") && !under(pkg, "app/daemon") && !under(pkg, "app/lnk") {
		return "only app/lnk imports app/daemon"
	}
	if under(dep, "bridges") && !under(pkg, "bridges") && !under(pkg, "app") {
		return "only app/... imports bridges"
	}
	if under(dep, "app") && !under(pkg, "app") {
		return "nothing outside app/ imports app/"
	}
	return ""
}

// TestFenceCatches checks the fence rules themselves, so a broken rule
// cannot pass silently.
func TestFenceCatches(t *testing.T) {
	bad := [][2]string{
		{module + "/spec", "golang.org/x/net/idna"},
		{module + "/confine", module + "/proxy"},
		{module + "/proxy", module + "/confine"},
		{module + "/app/cli", module + "/proxy"},
		{module + "/app/cli", module + "/app/daemon"},
		{module + "/proxy", module + "/app/apitype"},
		{module + "/dialogs", module + "/bridges/open"},
	}
	for _, b := range bad {
		if forbidden(b[0], b[1], false) == "" {
			t.Errorf("fence lets %s link %s", b[0], b[1])
		}
	}
	good := [][2]string{
		{module + "/spec", "github.com/BurntSushi/toml"},
		{module + "/confine", module + "/spec"},
		{module + "/bridges/open", module + "/proxy"},
		{module + "/app/lnk", module + "/app/daemon"},
		{module + "/app/daemon", module + "/bridges/asks"},
	}
	for _, g := range good {
		if why := forbidden(g[0], g[1], false); why != "" {
			t.Errorf("fence refuses %s -> %s: %s", g[0], g[1], why)
		}
	}
}
