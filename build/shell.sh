#!/usr/bin/env bash
# Runs a confined shell in the current folder on the default spec. Installs
# bubblewrap first if it is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
if ! command -v bwrap >/dev/null; then
	echo "lnk: installing bubblewrap (the Linux wall)" >&2
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
fi
. "$here/build/need-go.sh"
need_go
(cd "$here" && CGO_ENABLED=0 go build -o bin/lnk ./app/lnk)
exec "$here/bin/lnk" sandbox run -- "${SHELL:-/bin/bash}"
