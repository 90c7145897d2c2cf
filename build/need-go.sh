# Sourced by shell.sh and test.sh: makes sure a Go toolchain that can build
# lnk is on PATH. Go 1.21+ fetches the toolchain go.mod names by itself
# (GOTOOLCHAIN=auto, from the Go module proxy); an older or missing Go is
# replaced by the distribution's, and failing that, the error says what to do.
need_go() {
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	for d in /usr/local/go/bin "$HOME/go/bin" /usr/lib/go/bin; do
		[ -x "$d/go" ] && case ":$PATH:" in *":$d:"*) ;; *) PATH="$d:$PATH" ;; esac
	done
	if ! command -v go >/dev/null; then
		echo "installing Go from the distribution (golang-go)" >&2
		$sudo apt-get update -qq
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
	fi
	export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
	if ! go version >/dev/null 2>&1 || ! go list -m >/dev/null 2>&1; then
		echo "lnk: this Go ($(go version 2>/dev/null || echo none)) cannot build lnk: install Go 1.26 or newer (or any Go 1.21+, which fetches it) and put it on PATH" >&2
		exit 1
	fi
	export PATH
}
