#!/usr/bin/env bash
# Installs the real VS Codes the end-to-end tests run on: code-server from npm,
# the offline way (its own install script downloads prebuilt binaries, which
# these machines cannot reach), plus Debian's Chromium to drive them.
#
# Which code-servers: every target of test/harness/vscode-targets.json (the
# oldest VS Code engines.vscode promises, and the newest), or only those named:
#   bash scripts/install-code-server.sh            every target
#   bash scripts/install-code-server.sh oldest     one of them
# A target that needs a newer Node than the machine's gets it from npm's Node
# binary package (node-<os>-<arch>, which carries the headers native modules
# build against), into the cache beside it: no other download exists here.
#
# Idempotent: a target whose install is complete is only checked.
# Cache: $SYMPOSIUM_CACHE (default ~/.cache/symposium), outside git.
# Prints each target's code-server entry point path, one a line, last.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
TARGETS_FILE="$HERE/../test/harness/vscode-targets.json"
CACHE="${SYMPOSIUM_CACHE:-$HOME/.cache/symposium}"

log() { echo "[install-code-server] $*" >&2; }

# "name codeServerVersion nodeVersion-or-system" per target, read with the machine's Node (no jq needed).
targets() {
  node -e '
    const wanted = process.argv.slice(2);
    const { targets } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const unknown = wanted.filter((name) => !targets.some((target) => target.name === name));
    if (unknown.length) { console.error(`install-code-server: no target ${unknown.join(", ")} in ${process.argv[1]}`); process.exit(2); }
    for (const t of targets) if (!wanted.length || wanted.includes(t.name)) console.log(`${t.name} ${t.codeServer} ${t.node ?? "system"}`);
  ' "$TARGETS_FILE" "$@"
}

install_debian_packages() {
  local apt_packages=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium python3 make g++)
  local missing=()
  for pkg in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Npm's Node binary package for this machine, unpacked into the cache; prints its folder.
install_node() {
  local version="$1" arch
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) log "no Node package for $(uname -m)"; exit 1 ;; esac
  local package="node-linux-$arch" dir="$CACHE/node-$version"
  local home="$dir/node_modules/$package"
  if [ ! -x "$home/bin/node" ] || [ ! -d "$home/include/node" ]; then
    log "Node $version from npm ($package)"
    rm -rf "$dir" && mkdir -p "$dir"
    echo '{"name":"symposium-node","private":true}' > "$dir/package.json"
    (cd "$dir" && npm install --ignore-scripts "$package@$version" >&2)
  fi
  echo "$home"
}

# Builds, from source, each of VS Code's native modules this version carries (the set changes
# between versions; a module with only a binding.gyp needs --foreground-scripts to build at all).
rebuild_native_modules() {
  local present=()
  for module in kerberos @parcel/watcher @vscode/spdlog native-watchdog @vscode/native-watchdog node-pty @vscode/fs-copyfile @vscode/sqlite3; do
    [ -f "node_modules/$module/binding.gyp" ] && present+=("$module")
  done
  log "building VS Code's native modules from source: ${present[*]}"
  npm rebuild --foreground-scripts "${present[@]}" >&2
}

install_target() {
  local name="$1" version="$2" node_version="$3"
  local prefix="$CACHE/code-server-$version"
  local entry="$prefix/node_modules/code-server/out/node/entry.js"
  if [ -f "$prefix/.installed" ] && [ -f "$entry" ]; then
    echo "$entry"
    return 0
  fi
  (
    if [ "$node_version" != system ]; then
      local node_home
      node_home="$(install_node "$node_version")"
      export PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home"
    fi
    log "$name: code-server $version from npm, without its download scripts (Node $(node --version))"
    rm -rf "$prefix" && mkdir -p "$prefix" && cd "$prefix"
    echo '{"name":"symposium-code-server","private":true}' > package.json
    npm install --ignore-scripts --omit=dev "code-server@$version" >&2
    log "$name: argon2 (code-server's password hashing)"
    npm rebuild argon2 >&2

    cd node_modules/code-server/lib/vscode
    log "$name: VS Code's dependencies"
    npm install --omit=dev --ignore-scripts >&2
    rebuild_native_modules
    # Older versions ship ripgrep as a download; newer ones carry it (@vscode/ripgrep-universal).
    if [ -d node_modules/@vscode/ripgrep ] && [ ! -d node_modules/@vscode/ripgrep-universal ]; then
      mkdir -p node_modules/@vscode/ripgrep/bin
      cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    fi
    # What code-server's postinstall.sh does after installing, minus downloads.
    ln -sfn node_modules node_modules.asar
    [ -e bin/remote-cli/code-server ] || (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
    [ -e bin/helpers/browser.sh ] || (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
    log "$name: built-in extensions' dependencies"
    (cd extensions && npm install --omit=dev >&2)
    touch "$prefix/.installed"
    log "$name: done: $entry"
  )
  echo "$entry"
}

# npm_config_yes: node-pty's post-install runs `npx node-gyp`, which must not stop to ask.
export npm_config_loglevel=error npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_yes=true
install_debian_packages
targets "$@" | while read -r name version node_version; do
  install_target "$name" "$version" "$node_version"
done
