// The conductor config `npm start` gives the demo (SYMPOSIUM_CONFIG): its own
// file under the cache, so the demo never touches the user's
// ~/.symposium/config.jsonc. It starts on the offline demo agent, so the first
// prompt is answered with nothing to configure; an agent chosen since in the
// chat's agent picker (which saves it into this file) is kept on the next start.

import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";

/** The demo agent's command line as this file writes it: refreshed each start (the clone or Node may have moved). */
const DEMO_AGENT = /symposium-conductor\.mjs"?\s+demo-agent$/;

export interface DemoConfig {
  file: string;
  /** "demo": the demo agent (written now); "chosen": another agent, chosen earlier and kept. */
  agent: "demo" | "chosen";
  /** The chosen agent's name (its catalogue name or id, or its command line); absent when the file does not parse. */
  chosenName?: string;
}

/** Writes `<cache>/demo-conductor.jsonc` naming the demo agent, unless it names an agent chosen since. */
export function demoConductorConfig(cache: string, conductorScript: string, node = process.execPath): DemoConfig {
  const file = path.join(cache, "demo-conductor.jsonc");
  const chosen = chosenAgent(file);
  if (chosen !== false) return { file, agent: "chosen", ...(chosen.name === undefined ? {} : { chosenName: chosen.name }) };
  fs.mkdirSync(cache, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ agent: `${JSON.stringify(node)} ${JSON.stringify(conductorScript)} demo-agent`, proxies: [] }, null, 2), {
    mode: 0o600,
  });
  return { file, agent: "demo" };
}

/** What `file` names when it is an agent other than the demo agent this module writes, or does not parse (the conductor then says why; nothing is lost); false otherwise. */
function chosenAgent(file: string): { name?: string } | false {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return false;
  }
  const errors: ParseError[] = [];
  const config: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) return {};
  if (typeof config !== "object" || config === null || !("agent" in config)) return false;
  const { agent } = config;
  if (agent === undefined || (typeof agent === "string" && DEMO_AGENT.test(agent.trim()))) return false;
  const name = agentName(agent);
  return name === undefined ? {} : { name };
}

/** The name a user knows the agent by: a catalogue entry's name (or id), or a command line as written. */
function agentName(agent: unknown): string | undefined {
  if (typeof agent === "string") return agent.trim() || undefined;
  if (typeof agent !== "object" || agent === null) return undefined;
  for (const key of ["name", "id"] as const) {
    const value: unknown = (agent as Record<string, unknown>)[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return undefined;
}
