#!/usr/bin/env bash
# Installs a real VS Code for the end-to-end tests: code-server from npm, the
# offline way (its own install script downloads prebuilt binaries, which
# these machines cannot reach), plus Debian's Chromium to drive it.
#
# Idempotent: does nothing when the cache already holds a working install.
# Cache: $SYMPOSIUM_CACHE (default ~/.cache/symposium), outside git.
# Prints the code-server entry point path on its last line.
set -euo pipefail

VERSION="${CODE_SERVER_VERSION:-4.99.4}"
CACHE="${SYMPOSIUM_CACHE:-$HOME/.cache/symposium}"
PREFIX="$CACHE/code-server-$VERSION"
ENTRY="$PREFIX/node_modules/code-server/out/node/entry.js"
STAMP="$PREFIX/.installed"

log() { echo "[install-code-server] $*" >&2; }

if [ -f "$STAMP" ] && [ -f "$ENTRY" ] && command -v chromium >/dev/null 2>&1; then
  echo "$ENTRY"
  exit 0
fi

apt_packages=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# npm_config_yes: node-pty's post-install runs `npx node-gyp`, which must not stop to ask.
export npm_config_loglevel=error npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_yes=true
rm -rf "$PREFIX"
mkdir -p "$PREFIX"
cd "$PREFIX"
echo '{"name":"symposium-code-server","private":true}' > package.json

log "code-server $VERSION from npm, without its download scripts"
npm install --ignore-scripts --omit=dev "code-server@$VERSION" >&2

log "building argon2 (code-server's password hashing) from source"
npm rebuild argon2 >&2

cd node_modules/code-server/lib/vscode
log "VS Code's dependencies"
npm install --omit=dev --ignore-scripts >&2
log "building VS Code's native modules from source"
npm rebuild kerberos @parcel/watcher @vscode/spdlog native-watchdog node-pty >&2
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg

# What code-server's postinstall.sh does after installing, minus downloads.
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)

log "built-in extensions' dependencies"
(cd extensions && npm install --omit=dev >&2)

touch "$STAMP"
log "done: $ENTRY"
echo "$ENTRY"
