#!/usr/bin/env bash
# Installs the published ACP agent adapters the first-run menu offers
# (conductor-hooks/src/agent-choices.ts), each at a pinned version, for the
# interop tests (test/interop/interop-agent-adapters.test.ts), and OpenCode,
# which the agent-turns tests run against a scripted model.
#
# Real users run these agents as themselves, not as root, and Claude Code
# refuses some options as root: when this runs as root it creates an
# unprivileged user (symposium-agent) and installs into that user's
# ~/.cache/symposium/adapters, as that user; otherwise into ours.
# Idempotent: a second run with the same pins takes seconds. Prints the
# adapters directory on its last line.
set -euo pipefail

# package@version: keep in step with test/interop/adapters.ts.
ADAPTERS=(
  "@agentclientprotocol/claude-agent-acp@0.101.0"
  "@zed-industries/codex-acp@0.16.0"
  "@google/gemini-cli@0.61.0"
  "opencode-ai@1.1.53"
)
AGENT_USER="${SYMPOSIUM_AGENT_USER:-symposium-agent}"

log() { echo "[install-agent-adapters] $*" >&2; }

as_agent_user() { "$@"; }
home="$HOME"
if [ "$(id -u)" = "0" ]; then
  if ! id "$AGENT_USER" >/dev/null 2>&1; then
    log "creating the unprivileged user $AGENT_USER to run the agents as"
    useradd --create-home --shell /bin/bash "$AGENT_USER"
  fi
  home="$(getent passwd "$AGENT_USER" | cut -d: -f6)"
  as_agent_user() { runuser -u "$AGENT_USER" -- env HOME="$home" "$@"; }
fi

dir="${SYMPOSIUM_ADAPTERS_DIR:-$home/.cache/symposium/adapters}"
stamp="$dir/.installed-$(printf '%s\n' "${ADAPTERS[@]}" | cksum | cut -d' ' -f1)"
if [ ! -f "$stamp" ]; then
  log "npm install ${ADAPTERS[*]} into $dir (first time only)"
  as_agent_user mkdir -p "$dir"
  as_agent_user sh -c 'cd "$1" && [ -f package.json ] || echo "{\"private\":true}" > package.json' sh "$dir"
  if ! as_agent_user npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --save-exact "${ADAPTERS[@]}" >&2; then
    log "npm could not install the adapters: see its output above"
    exit 1
  fi
  as_agent_user touch "$stamp"
fi
echo "$dir"
