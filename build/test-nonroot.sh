#!/usr/bin/env bash
# Runs the tests of the wall, the proxy and the app again as an ordinary
# user (root passes checks a user fails), under its own Xvfb and session
# bus as the root run has. Called by test.sh when it runs as root: it copies
# the tree to that user's home and runs go test there.
set -euo pipefail
cd "$(dirname "$0")/.."
user=lnkci
pkgs=(./confine/... ./proxy/... ./app/... ./build/testenv/...)
id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
home="$(getent passwd "$user" | cut -d: -f6)"
rm -rf "$home/lnk"
mkdir -p "$home/lnk"
tar --exclude=./.git --exclude=./bin -cf - . | tar -C "$home/lnk" -xf -
chown -R "$user:" "$home/lnk"
existing=()
for p in "${pkgs[@]}"; do
	[ -d "${p%/...}" ] && existing+=("$p")
done
runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" PATH="$(dirname "$(command -v go)"):/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
	CI="${CI:-false}" GOPROXY="$(go env GOPROXY)" GOFLAGS=-buildvcs=false NO_AT_BRIDGE=1 \
	xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- \
	bash -c "cd ~/lnk && go test -count=1 -timeout 10m ${existing[*]}"
