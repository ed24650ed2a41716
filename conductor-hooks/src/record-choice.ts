// Recording a choice of agent, the one writer for every way of choosing:
// `registry use <id>` (run by "Symposium: Choose Agent" and the built-in
// chat's header), the setup agent's first-run menu, and --agent-choice /
// $SYMPOSIUM_AGENT. The config's "agent" becomes the catalogue's entry
// (catalogue.ts), the whole AgentConfig, so it runs offline and keeps running
// whatever the catalogue says later; a built-in agent of this conductor (the
// demo agent) as the command of the launcher beside the config
// (launcher.ts), which survives an extension update, runs from a terminal
// and under Symposium's Rust conductor too. The next `run` starts it.

import * as fs from "node:fs";
import * as path from "node:path";
import { RUST_BUILTIN_PROXIES, updateConfigFile } from "./config.js";
import { findAgent } from "./catalogue.js";
import type { AgentConfig } from "./registry-format.js";
import type { RegistryContext } from "./registry.js";

/** Makes the agent `id` the config's "agent", the file's other settings kept; returns it. */
export async function chooseAgent(id: string, context: RegistryContext): Promise<AgentConfig> {
  const agent = await findAgent(id, context);
  updateConfigFile(context.configPath, ["agent"], recorded(agent, context));
  return agent;
}

/** The entry as the file keeps it: this conductor's own subcommand as the launcher's command line, everything else as it is. */
function recorded(agent: AgentConfig, context: RegistryContext): AgentConfig {
  const own = agent.distribution.symposium;
  if (own === undefined) return agent;
  const [command, ...args] = context.selfCommand([own.subcommand, ...(own.args ?? [])]);
  return { ...agent, distribution: { local: { command: command!, args } } };
}

/**
 * A first config, for a user who had none: `agent` and the proxies' list
 * (mode 0600, its folder 0700). False when a file appeared at the path
 * meanwhile: that file is never overwritten.
 */
export function recordFirstChoice(agent: AgentConfig, context: RegistryContext): boolean {
  const { configPath } = context;
  fs.mkdirSync(path.dirname(configPath), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(configPath, firstConfigText(recorded(agent, context)), { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function firstConfigText(agent: AgentConfig): string {
  const proxies = RUST_BUILTIN_PROXIES.map((name) => `    { "name": ${JSON.stringify(name)}, "enabled": false }`).join(",\n");
  return `{
  // ${agent.name ?? agent.id}. Choose another with Symposium: Choose Agent, the chat's agent picker, or
  // \`symposium-conductor registry use <id>\` (\`registry list\` shows the ids).
  "agent": ${JSON.stringify(agent, null, 2).replace(/\n/g, "\n  ")},
  // Extensions. sparkle, ferris and cargo are built into Symposium's Rust conductor
  // (symposium-acp-agent); the TypeScript conductor cannot run them, so they start disabled.
  // An entry with a "command" is started as an ACP proxy by either conductor.
  "proxies": [
${proxies}
  ]
}
`;
}
