#!/usr/bin/env bash
# Benchmarks lnk against the direct path and against srt, side by side in
# one run, and prints a Markdown table (the README keeps the latest).
#   bash build/bench.sh           full run (a few minutes)
#   bash build/bench.sh -short    CI smoke run: judges nothing about speed
# Installs what it needs: bubblewrap, socat, ripgrep and curl from apt (srt
# needs the first three), and srt at a pinned version into build/bench/
# node_modules (never globally).
set -euo pipefail
cd "$(dirname "$0")/.."
srt_version=0.0.83
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
need=()
for p in bubblewrap socat ripgrep curl; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
command -v npm >/dev/null || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
srt=build/bench/node_modules/.bin/srt
if ! [ -x "$srt" ] || [ "$("$srt" --version 2>/dev/null)" != "$srt_version" ]; then
	npm install --prefix build/bench --no-save --no-package-lock --no-audit --no-fund \
		"@anthropic-ai/sandbox-runtime@$srt_version" >/dev/null
fi
CGO_ENABLED=0 go build -o bin/lnk ./app/lnk
exec go run ./build/bench/compare -lnk bin/lnk -srt "$srt" "$@"
