#!/usr/bin/env bash
# Installs the Rust ACP peers the interop tests and benchmarks run against:
# the reference conductor, the older sacp conductor, and Symposium's own Rust
# agent and proxy, each at a pinned version, with `cargo install --locked`.
#
# Two profiles. The tests need the peers to work, not to be fast, so the
# default is a debug build (`cargo install --debug`: about a third of a release
# build's time on a fresh 2-core machine) into $SYMPOSIUM_CACHE/rust-peers/bin.
# The benchmarks time the Rust conductor against ours, so `npm run bench` asks
# for `--release`, built into rust-peers-release/bin the first time it runs.
#
#   bash scripts/install-rust-peers.sh             debug builds, for the tests
#   bash scripts/install-rust-peers.sh --release   release builds, for the bench
#
# Idempotent and cached (default cache ~/.cache/symposium): a second run (and CI
# on the same machine) takes seconds. Prints the bin directory on its last line;
# one clear line on stderr naming what is missing otherwise.
set -euo pipefail

CACHE="${SYMPOSIUM_CACHE:-$HOME/.cache/symposium}"
PROFILE_FLAG=(--debug)
ROOT="$CACHE/rust-peers"
if [ "${1:-}" = "--release" ]; then
  PROFILE_FLAG=()
  ROOT="$CACHE/rust-peers-release"
elif [ -n "${1:-}" ]; then
  echo "[install-rust-peers] unknown argument '$1' (expected nothing, or --release)" >&2
  exit 2
fi
# crate@version, and a name for its binary when another pinned version has the same one:
# keep in step with test/interop/rust-peers.ts. The crates registry's newest reference
# conductor is 5.0.0; sacp-conductor 10 is what symposium-acp-agent 2.0.1 is built on.
PEERS=(
  "agent-client-protocol-conductor@5.0.0"
  "sacp-conductor@11.0.0"
  "symposium-acp-agent@2.0.1"
  "symposium-acp-proxy@1.1.1"
  "sacp-conductor@10.0.1 sacp-conductor-10"
)

log() { echo "[install-rust-peers] $*" >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  log "cargo not found: install Rust (rustup) to run the interop tests against the Rust conductors"
  exit 1
fi

mkdir -p "$ROOT"
export CARGO_TARGET_DIR="$ROOT/target"
for entry in "${PEERS[@]}"; do
  read -r peer alias <<<"$entry"
  stamp="$ROOT/.installed-$peer"
  if [ -f "$stamp" ]; then continue; fi
  # A renamed binary is installed in a root of its own, then linked into bin/ under its name.
  root="$ROOT"
  if [ -n "${alias:-}" ]; then root="$ROOT/renamed/$alias"; fi
  log "cargo install --locked ${PROFILE_FLAG[*]:-} $peer (first time only; several minutes)"
  if ! cargo install --locked --quiet ${PROFILE_FLAG[@]+"${PROFILE_FLAG[@]}"} --root "$root" "$peer" >&2; then
    log "could not build $peer: see cargo's output above"
    exit 1
  fi
  if [ -n "${alias:-}" ]; then
    mkdir -p "$ROOT/bin"
    ln -sf "$root/bin/${peer%@*}" "$ROOT/bin/$alias"
  fi
  touch "$stamp"
done
# The target dir is only a build cache; keep it small once everything is built.
rm -rf "$ROOT/target"
echo "$ROOT/bin"
