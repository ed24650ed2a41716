// `npm start`: a real VS Code (code-server) with this extension installed, a
// sample workspace and built-in defaults; prints the address to open. What the
// user changes in the demo (a theme, an agent chosen in the chat's picker) is
// kept for the next start.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import getPort from "get-port";
import { REPO_DIR } from "../support/processes.js";
import { codeServerEntry, copySampleWorkspace, startCodeServer, vsCodeTarget } from "./code-server.js";
import { demoConductorConfig, type DemoConfig } from "./demo-config.js";

const cache = process.env.SYMPOSIUM_CACHE ?? path.join(os.homedir(), ".cache", "symposium");

if (!fs.existsSync(codeServerEntry())) {
  if (process.platform !== "linux") {
    console.error(`code-server is not installed at ${codeServerEntry()}; scripts/install-code-server.sh supports Debian-like Linux only.`);
    process.exit(1);
  }
  // One line; the installer's output (npm, apt-get) goes to the setup log (scripts/steps.mjs).
  const install = [path.join(REPO_DIR, "scripts", "install-code-server.sh"), vsCodeTarget().name];
  const step = spawnSync(
    process.execPath,
    [path.join(REPO_DIR, "scripts", "steps.mjs"), "Installing code-server and Chromium (once; a few minutes)", "bash", ...install],
    {
      stdio: "inherit",
    },
  );
  if (step.status !== 0) process.exit(1);
}

// The demo works with no configuration: the conductor runs the offline demo agent (or the one
// chosen since in the chat's picker), unless the user named a conductor config of their own.
let demo: DemoConfig | undefined;
if (!process.env.SYMPOSIUM_CONFIG) {
  demo = demoConductorConfig(cache, path.join(REPO_DIR, "dist", "symposium-conductor.mjs"));
  process.env.SYMPOSIUM_CONFIG = demo.file;
}

const workspace = path.join(cache, "demo-workspace");
if (!fs.existsSync(workspace)) copySampleWorkspace(workspace);
const port = process.env.PORT ? Number(process.env.PORT) : await getPort({ host: "127.0.0.1", port: 8080 });
process.stderr.write("Starting code-server… ");
const started = Date.now();
const server = await startCodeServer(workspace, { root: path.join(cache, "demo-profile"), port, panelIdleMs: null });

process.stderr.write(`done (${Math.round((Date.now() - started) / 1000)} s)\n`);

console.log(`
Symposium for VS Code is running in code-server.

  Open:      ${server.url}?folder=${encodeURIComponent(workspace)}
  Password:  ${server.password}

Open src/main.rs, select a line or two, press Ctrl+Alt+Y (or run "Symposium: Open Chat")
and ask about it. ${agentLine(demo)}
"Symposium: Show Editor Context" shows what an agent would receive at any moment.
Press Ctrl+C to stop.`);

/** Which agent answers, and where another is chosen. */
function agentLine(config: DemoConfig | undefined): string {
  if (config === undefined) return `The agent is the one ${process.env.SYMPOSIUM_CONFIG} names.`;
  if (config.agent === "chosen") {
    const which = config.chosenName === undefined ? `The agent chosen earlier (in ${config.file})` : `${config.chosenName}, chosen earlier,`;
    return `${which} answers (the agent picker in the chat's header lists the others, the demo agent too).`;
  }
  return "The offline demo agent answers with the <editor-context> block it received;\nthe agent picker in the chat's header switches to another (kept for the next npm start).";
}

// `on`, not `once`: a second Ctrl+C (or the terminal's SIGINT beside npm's) while stopping must not
// end this process by the default action, leaving the chat host running.
let stopping: Promise<void> | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void (stopping ??= stopEverything().then(() => process.exit(0))));
}

/** Ctrl+C stops what the demo started: code-server, and the chat host the extension started detached (see CodeServer.stop). */
async function stopEverything(): Promise<void> {
  console.error("Stopping code-server and the chat…");
  await server.stop();
}
