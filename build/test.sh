#!/usr/bin/env bash
# Installs what the tests need (Debian/Ubuntu), then runs every gate and
# every test: gofmt, go vet, staticcheck, go generate drift, cross-compiles,
# go test -race (under Xvfb and a private D-Bus), short fuzz runs, and the
# wall's tests again as an unprivileged user. CI runs this with CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
export CI="${CI:-false}"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

step() { printf '\n=== %s\n' "$*"; }
fail() { printf 'test.sh: %s\n' "$*" >&2; exit 1; }

# Debian packages the tests use: the wall, GUI tests, real clients.
apt_pkgs=(bubblewrap xvfb xauth zenity xdotool x11-utils imagemagick dbus dbus-x11
	git curl iproute2 socat ripgrep openssh-client openssh-server procps chromium
	xfce4-panel) # xfce4-panel: a real tray host (StatusNotifierItem) for the tray's screenshot test

step "dependencies"
. build/need-go.sh
need_go
missing=()
for p in "${apt_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
gobin="$(go env GOPATH)/bin"
export PATH="$gobin:$PATH"
if ! staticcheck -version 2>/dev/null | grep -q "2026.1.2\|v0.8.2"; then
	go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
go version

# The tools bridge's tests run the reference MCP server from npm (Node),
# installed into build/mcp, never globally.
mcp_everything=2026.8.31
mcp_pkg=build/mcp/node_modules/@modelcontextprotocol/server-everything/package.json
if ! grep -qs "\"version\": \"$mcp_everything\"" "$mcp_pkg"; then
	if ! command -v npm >/dev/null; then
		$sudo apt-get update -qq
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
	fi
	npm install --prefix build/mcp --no-save --no-package-lock --no-audit --no-fund \
		"@modelcontextprotocol/server-everything@$mcp_everything" >/dev/null
fi

step "gofmt"
bad="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))"
[ -z "$bad" ] || fail "gofmt needed on: $bad (run gofmt -w)"

step "go vet"
go vet ./...

step "staticcheck"
staticcheck ./...

step "go generate drift"
before="$(git diff --binary | sha256sum)"
go generate ./...
after="$(git diff --binary | sha256sum)"
[ "$before" = "$after" ] || { git diff --stat; fail "generated files were stale: run go generate ./... and commit"; }

step "cross-compile"
# Every package builds for darwin and windows on amd64 and arm64 without
# cgo; go vet type-checks the tests too for the amd64 targets.
for target in darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	GOOS="${target%/*}" GOARCH="${target#*/}" CGO_ENABLED=0 go build -o /dev/null ./... || fail "build for $target failed"
done
for target in darwin/amd64 windows/amd64; do
	GOOS="${target%/*}" GOARCH="${target#*/}" CGO_ENABLED=0 go vet ./... || fail "vet (and test compile) for $target failed"
done
# Every test compiles and links for each target (-exec=true runs nothing:
# the walls' generators are tested on Linux, their appliers only compile).
for target in darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	GOOS="${target%/*}" GOARCH="${target#*/}" CGO_ENABLED=0 go test -exec=true -count=1 ./... >/dev/null || fail "tests do not compile for $target"
done

step "go test -race"
export NO_AT_BRIDGE=1
if ! xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- \
	go test -race -count=1 -timeout 12m ./...; then
	fail "go test failed"
fi

# A count, not a duration: with -fuzztime=5s, Go 1.26's fuzz coordinator can
# report "context deadline exceeded" at the deadline with no failing input
# (golang/go#75804, fixed in Go 1.27). A count has no deadline to race.
step "fuzz (${LNK_FUZZ_EXECS:=40000} inputs each)"
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
	pkg="./$(dirname "${f#./}")"
	for fz in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | cut -c6-); do
		go test -run=NONE -fuzz="^${fz}\$" -fuzztime="${LNK_FUZZ_EXECS}x" "$pkg" >/tmp/lnk-fuzz.log 2>&1 || { cat /tmp/lnk-fuzz.log; fail "fuzzer $fz in $pkg failed"; }
		echo "ok $pkg $fz"
	done
done

step "benchmark smoke run (judges nothing about speed)"
bash build/bench.sh -short

step "as an unprivileged user"
if [ "$(id -u)" = 0 ]; then
	bash build/test-nonroot.sh
else
	echo "already unprivileged: the run above covers it"
fi

printf '\nall gates and tests passed\n'
