#!/usr/bin/env node
// symposium-editor-tools: the editor's MCP server on stdio (docs/editor-tools.md).
// The editor-context proxy names it in each session's mcpServers; the agent
// starts it, one per session, and ends it by closing its stdin. Logs go to stderr.

import { describeError, onStopSignal, printLine, runCli, stderrLogger, debugLogger, packageVersion } from "../../acp-wire/src/index.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { TOOLS_STARTED_ENV, announceStarted } from "../../editor-context-proxy/src/tools-started.js";
import { createEditorToolsServer } from "./server.js";
import { LineTransport } from "./stdio-transport.js";

const NAME = "symposium-editor-tools";

const USAGE = `Usage: ${NAME}            serve the editor's tools over MCP on stdio
       ${NAME} --help | --version

Reads the VS Code window's state file and live channel from ${STATE_FILE_ENV}.`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) return printLine(USAGE);
  if (argv.includes("--version") || argv.includes("-V")) return printLine(packageVersion());
  if (argv.length > 0) {
    process.stderr.write(`${NAME}: unknown argument '${argv[0]}'\n${USAGE}\n`);
    return 2;
  }
  const log = debugLogger(NAME);
  const tools = createEditorToolsServer({ stateFile: process.env[STATE_FILE_ENV] || undefined, log });
  const transport = new LineTransport();
  // A line that is not JSON-RPC is skipped by the transport and noted here; the server goes on.
  transport.onerror = (error) => log(error.message);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    onStopSignal(() => resolve());
  });
  // The conductor notes which agents start the server they were offered (docs/editor-tools.md).
  tools.server.oninitialized = () => announceStarted(process.env[TOOLS_STARTED_ENV], log);
  await tools.server.connect(transport);
  await closed;
  tools.close();
  await tools.server.close().catch(() => {});
  return 0;
}

runCli(main, (error) => {
  stderrLogger(NAME)(describeError(error));
  return 1;
});
