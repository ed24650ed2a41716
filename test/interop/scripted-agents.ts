// Each agent pointed at the scripted model (test/fixtures/scripted-model/),
// run as the agents' user with a HOME of its own made for the test, so
// nothing of a developer's own setup is read and nothing is fetched at run
// time: the command line the conductor is given for it (docs/interop.md,
// "Whole turns against a scripted model").

import * as fs from "node:fs";
import * as path from "node:path";
import { SCRIPTED_MODEL_NAME } from "../fixtures/scripted-model/index.js";
import { adapterCommand, agentOwnedDir, giveToAgentUser, type AgentAdapter } from "./adapters.js";

/** A key the scripted model accepts; the agents refuse to start without one. */
const DUMMY_KEY = "scripted-model-key";

/** Writes `files` (relative to `home`) and the environment that points `adapter` at `modelUrl`. */
function pointedAt(adapter: AgentAdapter, modelUrl: string, home: string): { files: Record<string, string>; env: Record<string, string> } {
  switch (adapter.shortName) {
    case "claude":
      return {
        // The adapter's default is auto mode, whose safety classifier asks the model about every tool call:
        // "default" asks the client instead (session/request_permission), as the chat shows it.
        files: { ".claude/settings.json": JSON.stringify({ permissions: { defaultMode: "default" } }) },
        env: { ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: DUMMY_KEY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" },
      };
    case "codex":
      return {
        files: {
          ".codex/config.toml": [
            `model = "${SCRIPTED_MODEL_NAME}"`,
            `model_provider = "scripted"`,
            // Its default in a folder it does not know is read-only; writing the project is what users choose.
            `sandbox_mode = "workspace-write"`,
            `[model_providers.scripted]`,
            `name = "Scripted model"`,
            `base_url = "${modelUrl}/v1"`,
            `wire_api = "responses"`,
            `requires_openai_auth = false`,
            ``,
          ].join("\n"),
        },
        env: { CODEX_HOME: path.join(home, ".codex") },
      };
    case "gemini":
      return {
        files: {
          ".gemini/settings.json": JSON.stringify({
            security: { auth: { selectedType: "gemini-api-key" } },
            privacy: { usageStatisticsEnabled: false },
            general: { disableAutoUpdate: true, disableUpdateNag: true },
            telemetry: { enabled: false },
          }),
        },
        env: { GOOGLE_GEMINI_BASE_URL: modelUrl, GEMINI_API_KEY: DUMMY_KEY, GEMINI_CLI_TRUST_WORKSPACE: "true" },
      };
    case "opencode":
      return {
        files: {},
        env: {
          OPENCODE_CONFIG_CONTENT: JSON.stringify({
            provider: {
              scripted: {
                npm: "@ai-sdk/openai-compatible",
                name: "Scripted model",
                options: { baseURL: `${modelUrl}/v1`, apiKey: DUMMY_KEY },
                models: { [SCRIPTED_MODEL_NAME]: { name: "Scripted model", tool_call: true } },
              },
            },
            model: `scripted/${SCRIPTED_MODEL_NAME}`,
            small_model: `scripted/${SCRIPTED_MODEL_NAME}`,
            autoupdate: false,
            share: "disabled",
          }),
          OPENCODE_DISABLE_MODELS_FETCH: "1",
          OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
          OPENCODE_DISABLE_AUTOUPDATE: "1",
        },
      };
  }
}

/**
 * Where a test's folders for the agents go (their HOME, the project, the state file, the window's
 * socket): beside the adapters, in the agents' user's cache, never /tmp, where an agent finds what
 * others left (OpenCode reads any opencode.json in the project's parent folders, /tmp's included),
 * and Codex refuses to put its helpers. One per test file (each runs in a process of its own), so
 * that one file's cleanup never removes the folders of another running beside it.
 */
export function agentTurnsDir(setup: { dir: string }): string {
  return path.join(path.dirname(setup.dir), `agent-turns-${process.pid}`);
}

/** The command line that runs `adapter` against the scripted model at `modelUrl`, with a HOME made for it; `envOverrides` win over its variables. */
export function scriptedAgentCommand(
  setup: { dir: string; prefix: string[] },
  adapter: AgentAdapter,
  modelUrl: string,
  envOverrides: Record<string, string> = {},
): string[] {
  const home = agentOwnedDir(`home-${adapter.shortName}-`, agentTurnsDir(setup));
  const pointed = pointedAt(adapter, modelUrl, home);
  const { files } = pointed;
  const env = { ...pointed.env, ...envOverrides };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(home, name)), { recursive: true });
    fs.writeFileSync(path.join(home, name), text);
  }
  giveToAgentUser(home);
  const assignments = Object.entries({ HOME: home, ...env }).map(([name, value]) => `${name}=${value}`);
  return adapterCommand(setup, adapter, assignments);
}
