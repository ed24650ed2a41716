// `npm start`: a real VS Code (code-server) with this extension installed, a
// sample workspace and built-in defaults; prints the address to open.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import getPort from "get-port";
import { descendantsOf, isAlive, stopProcessTree } from "../../acp-wire/src/processes.js";
import { REPO_DIR } from "../support/processes.js";
import { codeServerEntry, startCodeServer } from "./code-server.js";

const cache = process.env.SYMPOSIUM_CACHE ?? path.join(os.homedir(), ".cache", "symposium");

if (!fs.existsSync(codeServerEntry())) {
  if (process.platform !== "linux") {
    console.error(`code-server is not installed at ${codeServerEntry()}; scripts/install-code-server.sh supports Debian-like Linux only.`);
    process.exit(1);
  }
  console.error("Installing code-server (once; a few minutes)…");
  execFileSync("bash", [path.join(REPO_DIR, "scripts", "install-code-server.sh")], { stdio: ["ignore", "ignore", "inherit"] });
}

// The demo works with no configuration: the conductor runs the offline demo agent,
// unless the user named a conductor config of their own.
if (!process.env.SYMPOSIUM_CONFIG) {
  const config = path.join(cache, "demo-conductor.jsonc");
  const conductor = path.join(REPO_DIR, "dist", "symposium-conductor.mjs");
  fs.mkdirSync(cache, { recursive: true });
  fs.writeFileSync(config, JSON.stringify({ agent: `${JSON.stringify(process.execPath)} ${JSON.stringify(conductor)} demo-agent`, proxies: [] }, null, 2), {
    mode: 0o600,
  });
  process.env.SYMPOSIUM_CONFIG = config;
}

const workspace = path.join(cache, "demo-workspace");
if (!fs.existsSync(workspace)) fs.cpSync(path.join(REPO_DIR, "test", "fixtures", "workspace"), workspace, { recursive: true });
const port = process.env.PORT ? Number(process.env.PORT) : await getPort({ host: "127.0.0.1", port: 8080 });
const server = await startCodeServer(workspace, { root: path.join(cache, "demo-profile"), port });

console.log(`
Symposium for VS Code is running in code-server.

  Open:      ${server.url}?folder=${encodeURIComponent(workspace)}
  Password:  ${server.password}

Open src/main.rs, select a line or two, press Ctrl+Alt+Y (or run "Symposium: Open Chat")
and ask about it: the demo agent's answer shows the <editor-context> block it received.
"Symposium: Show Editor Context" shows what an agent would receive at any moment.
Press Ctrl+C to stop.`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stopEverything().then(() => process.exit(0)));
}

/**
 * Ctrl+C stops what the demo started: code-server, and the chat host the extension
 * started detached (with its chat, conductors and agents), which would otherwise
 * wait for its idle timeout. They are listed while code-server still is their ancestor.
 */
async function stopEverything(): Promise<void> {
  const started = await descendantsOf([process.pid]).catch(() => []);
  console.error(`Stopping code-server and the chat (${started.length} processes)…`);
  await server.stop();
  await Promise.all(started.filter(isAlive).map((pid) => stopProcessTree(pid)));
}
