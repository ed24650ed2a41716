#!/usr/bin/env bash
# Installs the real Toad (batrachian-toad) for the tests (and anyone without
# Python 3.14), without touching the host's own libraries:
#   ~/.cache/symposium/toad/root    Debian sid (minbase) with python3.14, Toad in /opt/toad/venv
#   ~/.cache/symposium/toad/bin/python  that Python, run inside the root with bubblewrap
#   ~/.cache/symposium/toad/bin/toad    Toad's own entry point, run by that Python
# Toad needs Python >= 3.14, which bookworm lacks, and sid's Python would pull a
# new libc into the host: hence a root of its own. Idempotent: a second run
# only checks. Linux only (bubblewrap); elsewhere use
# `uv tool install -U batrachian-toad --python 3.14`.
set -euo pipefail

TOAD_VERSION="${SYMPOSIUM_TOAD_VERSION:-0.6.20}"
BASE="$HOME/.cache/symposium/toad"
ROOT="$BASE/root"
VENV=/opt/toad/venv # inside the root
STAMP="$BASE/.installed-batrachian-toad-$TOAD_VERSION"

fail() {
  echo "install-toad: $*" >&2
  exit 1
}
say() { echo "install-toad: $*" >&2; }

[ "$(uname -s)" = Linux ] || fail "needs Linux (bubblewrap); elsewhere run: uv tool install -U batrachian-toad --python 3.14"

if [ -f "$STAMP" ] && [ -x "$BASE/bin/toad" ] && "$BASE/bin/python" -c "import toad" 2>/dev/null; then
  say "Toad $TOAD_VERSION already installed: $BASE/bin/toad"
  exit 0
fi

# --- tools --------------------------------------------------------------------
missing=""
command -v debootstrap >/dev/null || missing="$missing debootstrap"
command -v bwrap >/dev/null || missing="$missing bubblewrap"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing$missing (apt-get)"
    # Another install may hold the apt lock for a while: wait for it.
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing >&2 || fail "apt-get could not install$missing"
  else
    fail "missing$missing: install them (sudo apt-get install$missing), then run this again"
  fi
fi

# The Debian mirror this machine's apt already uses (deb822 or one-line sources).
mirror() {
  local uri
  uri=$(grep -hs -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  [ -n "$uri" ] || uri=$(grep -hs -E '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# --- the root -------------------------------------------------------------------
if [ ! -x "$ROOT/usr/bin/python3.14" ]; then
  MIRROR=$(mirror)
  say "building a Debian sid root with python3.14 from $MIRROR (about 300 MB, a minute or two)"
  rm -rf "$ROOT.tmp"
  mkdir -p "$BASE"
  debootstrap --variant=minbase --include=python3.14,python3.14-venv,ca-certificates sid "$ROOT.tmp" "$MIRROR" >"$BASE/debootstrap.log" 2>&1 ||
    fail "debootstrap failed (log: $BASE/debootstrap.log; needs the Debian mirror $MIRROR)"
  rm -rf "$ROOT"
  mv "$ROOT.tmp" "$ROOT"
fi

# Runs a command inside the root, writable, with the host's network settings
# and certificates (a proxy's CA, pip's own settings in the environment).
in_root() {
  bwrap --bind "$ROOT" / --dev-bind /dev /dev --proc /proc --bind /tmp /tmp \
    --ro-bind-try /etc/resolv.conf /etc/resolv.conf --ro-bind-try /etc/hosts /etc/hosts \
    --ro-bind-try /etc/ssl/certs /etc/ssl/certs --ro-bind-try /etc/pip.conf /etc/pip.conf \
    --setenv HOME /root --unsetenv PIP_FIND_LINKS -- "$@"
}

if ! in_root "$VENV/bin/python" -c "import toad, importlib.metadata as m, sys; sys.exit(m.version('batrachian-toad') != '$TOAD_VERSION')" 2>/dev/null; then
  say "installing batrachian-toad==$TOAD_VERSION into $ROOT$VENV"
  in_root /usr/bin/python3.14 -m venv "$VENV" >&2 || fail "python3.14 -m venv failed inside $ROOT"
  in_root "$VENV/bin/pip" install -q --no-cache-dir "batrachian-toad==$TOAD_VERSION" >&2 ||
    fail "pip could not install batrachian-toad==$TOAD_VERSION (needs the Python package index)"
fi
# Toad re-runs itself through a shell for each websocket: `toad` resolves inside the root too.
ln -sf "$VENV/bin/toad" "$ROOT/usr/local/bin/toad"
: >"$ROOT/.symposium-toad-root"

# --- launchers ------------------------------------------------------------------
mkdir -p "$BASE/bin"
# The launchers are written with quoted heredocs (nothing expanded here) and
# the two paths filled in afterwards.
cat >"$BASE/bin/python.tmp" <<'EOF'
#!/bin/sh
# Python 3.14 of Toad's own root (@ROOT@), run with bubblewrap; written by
# scripts/install-toad.sh. The host's /tmp, /var/tmp, /run, /dev, /proc, home
# and every top-level folder that is not part of a system (the project,
# workspaces) appear at the same paths, and so does the host's node. Only the
# mounts are namespaced: argv, cwd, environment, exit status and signals pass
# through, and the processes inside are the host's own.
# Inside the root already (Toad re-running itself per websocket): run directly.
if [ -e /.symposium-toad-root ]; then exec @VENV@/bin/python "$@"; fi
# Options are prepended one by one, so the program and its argv stay last. The
# root is writable only while bwrap makes the mount points, then read-only.
set -- --remount-ro / -- @VENV@/bin/python "$@"
node=$(command -v node 2>/dev/null || true)
if [ -n "$node" ]; then
  real=$(readlink -f "$node")
  set -- --ro-bind "$real" "$real" "$@"
  [ "$real" = "$node" ] || set -- --ro-bind "$real" "$node" "$@"
fi
for dir in /*; do
  case "$dir" in
    /bin|/boot|/dev|/etc|/lib|/lib32|/lib64|/libx32|/opt|/proc|/run|/sbin|/sys|/tmp|/usr|/var|/lost+found) ;;
    *) if [ -d "$dir" ]; then set -- --bind "$dir" "$dir" "$@"; fi ;;
  esac
done
exec bwrap --bind '@ROOT@' / --dev-bind /dev /dev --bind /proc /proc --bind /tmp /tmp \
  --bind-try /var/tmp /var/tmp --bind-try /run /run \
  --ro-bind-try /etc/resolv.conf /etc/resolv.conf --ro-bind-try /etc/hosts /etc/hosts \
  --ro-bind-try /etc/passwd /etc/passwd --ro-bind-try /etc/group /etc/group --ro-bind-try /etc/ssl/certs /etc/ssl/certs \
  --chdir "$PWD" "$@"
EOF
sed -i -e "s|@ROOT@|$ROOT|g" -e "s|@VENV@|$VENV|g" "$BASE/bin/python.tmp"
chmod 755 "$BASE/bin/python.tmp"
mv "$BASE/bin/python.tmp" "$BASE/bin/python"

# Toad's own entry point (what pip writes as venv/bin/toad), run by that
# Python: a panel host finds Toad's interpreter in its first line.
cat >"$BASE/bin/toad.tmp" <<'EOF'
#!@BASE@/bin/python
import sys
from toad.cli import main
if __name__ == "__main__":
    sys.exit(main())
EOF
sed -i "s|@BASE@|$BASE|g" "$BASE/bin/toad.tmp"
chmod 755 "$BASE/bin/toad.tmp"
mv "$BASE/bin/toad.tmp" "$BASE/bin/toad"

"$BASE/bin/toad" --help >/dev/null 2>&1 || fail "$BASE/bin/toad does not run (try: $BASE/bin/toad --help)"
: >"$STAMP"
say "Toad $TOAD_VERSION installed: $BASE/bin/toad"
