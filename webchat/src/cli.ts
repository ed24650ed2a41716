#!/usr/bin/env node
// symposium-webchat: the built-in ACP web chat, with Toad's command line
// (docs/webchat.md). `acp "<command>" --serve` serves the page; each
// conversation runs <command> through the shell in the project directory
// (or, with --agent-program, that program without a shell: args.ts).

import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError, describeError, packageVersion, printLine, runCli, stderrLogger, stopSignal } from "../../acp-wire/src/index.js";
import { CHAT_TOKEN_ENV, generateSecret, isLoopbackHost, parseOriginList } from "../../loopback-auth/src/index.js";
import { parseArgs, USAGE } from "./args.js";
import { historyDir } from "./history.js";
import { ProjectFiles } from "./project-files.js";
import { ChatServer } from "./server.js";
import { warmUpAcp } from "./warm-up.js";
import { preloadConductorFor } from "./agent-process.js";
import { commandText } from "./agent-command.js";

const NAME = "symposium-webchat";
const log = stderrLogger(NAME);

/** Extra origins (and so Host values) to accept: code-server's, when it forwards /proxy/PORT/. */
export const ALLOWED_ORIGINS_ENV = "SYMPOSIUM_CHAT_ALLOWED_ORIGINS";
/** How long a named conversation with no page attached keeps its agent (ms). */
export const GRACE_ENV = "SYMPOSIUM_CHAT_GRACE_MS";
const DEFAULT_GRACE_MS = 10 * 60_000;

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) return printLine(USAGE);
  if (args.version) return printLine(packageVersion());
  if (!args.serve) log("no terminal interface here: serving the web page (as with --serve)");

  let token: string;
  let allowedOrigins: string[];
  try {
    token = generateSecret();
    allowedOrigins = parseOriginList(process.env[ALLOWED_ORIGINS_ENV]);
  } catch (error) {
    log(`${(error as Error).message} (${(error as Error).message.includes(CHAT_TOKEN_ENV) ? CHAT_TOKEN_ENV : ALLOWED_ORIGINS_ENV})`);
    return 2;
  }
  const graceMs = Number(process.env[GRACE_ENV] ?? DEFAULT_GRACE_MS);
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    log(`${GRACE_ENV} must be a number of milliseconds, not '${process.env[GRACE_ENV]}'`);
    return 2;
  }
  let files: ProjectFiles;
  try {
    for (const dir of [args.projectDir, ...args.additionalDirs]) if (!fs.statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
    files = await ProjectFiles.open(args.projectDir, args.additionalDirs);
  } catch (error) {
    log(`the project directory ${[args.projectDir, ...args.additionalDirs].join(", ")} cannot be used: ${(error as Error).message}`);
    return 2;
  }
  if (!isLoopbackHost(args.host)) log(`warning: listening on ${args.host}, not only on this machine; the secret still guards every request`);

  // The agent gets the server's environment, minus the secret it has no use for.
  const agentEnv = { ...process.env };
  delete agentEnv[CHAT_TOKEN_ENV];
  const server = new ChatServer({
    command: args.command,
    projectDir: args.projectDir,
    files,
    title: args.title,
    host: args.host,
    port: args.port,
    token,
    allowedOrigins,
    graceMs,
    maxConversations: args.maxConversations,
    historyDir: historyDir(args.projectDir, args.stateDir),
    agentEnv,
    assetsDir: path.join(path.dirname(fileURLToPath(import.meta.url)), "webchat"),
    log,
  });
  try {
    await server.listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") log(`port ${args.port} on ${args.host} is busy: stop what uses it, or choose another port with --port`);
    else if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") log(`cannot listen on ${args.host}: no such local address (use --host 127.0.0.1)`);
    else log(`cannot listen on ${args.host}:${args.port}: ${(error as Error).message}`);
    return 1;
  }
  const urlHost = args.host === "0.0.0.0" || args.host === "::" ? "127.0.0.1" : args.host.includes(":") ? `[${args.host}]` : args.host;
  process.stderr.write(`http://${urlHost}:${server.port}/?token=${encodeURIComponent(token)}\n`);
  log(`serving ${args.projectDir}; each conversation runs: ${commandText(args.command)}`);
  warmUpAcp().catch((error: unknown) => log(`warming up the ACP client failed (harmless): ${describeError(error)}`));
  if (preloadConductorFor(args.command)) log("the conductor runs in this process for each conversation (its agent and proxies are processes)");

  await stopSignal();
  log("stopping: ending every conversation");
  await server.close();
  return 0;
}

runCli(main, (error) => {
  log(`failed: ${describeError(error)}`);
  return 1;
});
