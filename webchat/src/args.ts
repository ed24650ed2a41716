// Toad's command line, same words, same defaults:
//   acp COMMAND [PATH] [-t/--title T] [-d/--project-dir D] [-p/--port N] [-H/--host H] [-s/--serve]
// plus options of our own: --max-conversations N (Toad has no such limit),
// --add-dir, --state-dir, and the agent as a program instead of COMMAND
// (--agent-program P [--agent-arg A]… [--agent-env NAME=VALUE]…: run without
// a shell; agent-command.ts).
// Unlike Toad in serve mode, PATH is honoured (Toad loses it there); the
// project directory is --project-dir, else PATH, else the working directory.

import * as path from "node:path";
import { UsageError, parseCommandLine } from "../../acp-wire/src/index.js";
import type { AgentCommand } from "./agent-command.js";

/** Each conversation is an agent process (often a conductor, an agent and its tools): a handful is what a person uses. */
export const DEFAULT_MAX_CONVERSATIONS = 16;
const MAX_CONVERSATIONS_CEILING = 1_000;

export interface ChatArgs {
  command: AgentCommand;
  projectDir: string;
  title: string;
  host: string;
  port: number;
  serve: boolean;
  /** Live conversations (each an agent) at most; a page asking for one more is told why it cannot. */
  maxConversations: number;
  /** More folders of the workspace (a multi-root one): given to the agent (additionalDirectories) and open to its file access. */
  additionalDirs: string[];
  /** Where conversations are kept (history/<workspace hash> below it); undefined: ~/.symposium. */
  stateDir?: string;
  help?: boolean;
  version?: boolean;
}

export const USAGE = `Usage: symposium-webchat acp COMMAND [PATH] [options]
       symposium-webchat acp --agent-program P [--agent-arg A]... [--agent-env NAME=VALUE]... [PATH] [options]

Serves a web chat; each conversation runs COMMAND (an ACP agent command line, run through
the shell), or the program P with the arguments A (without a shell; NAME=VALUE set for it
alone), in the project directory. Prints the URL to open, with its secret, on stderr.

Options:
  -s, --serve              serve the web page (the only interface; accepted for Toad compatibility)
  -p, --port N             port (default 8000; 0 picks a free one)
  -H, --host H             address to listen on (default localhost)
  -d, --project-dir D      project directory (default PATH, else the working directory)
  -t, --title T            page title (default Symposium)
      --max-conversations N
                           conversations (each an agent) running at once, at most (default
                           ${DEFAULT_MAX_CONVERSATIONS}); when full, the one longest without a page ends
      --add-dir D          another folder of the workspace (repeatable): the agent is told of it
                           and may read and write there as in the project
      --state-dir D        where this workspace's conversations are kept (under D/history/;
                           default ~/.symposium)
  -h, --help | --version

Environment: SYMPOSIUM_CHAT_TOKEN (the secret), SYMPOSIUM_CHAT_ALLOWED_ORIGINS (extra
origins, e.g. code-server's), SYMPOSIUM_CHAT_GRACE_MS (how long a conversation without a
page lives; default 600000), SYMPOSIUM_CHAT_SIGNIN_TIMEOUT_MS (how long a pending sign-in is
waited for; default 180000). See docs/webchat.md.`;

export function parseArgs(argv: readonly string[], cwd = process.cwd()): ChatArgs {
  if (argv.includes("--help") || argv.includes("-h")) return { ...defaults(cwd), help: true };
  if (argv.includes("--version")) return { ...defaults(cwd), version: true };
  const { values, positionals } = parseCommandLine({
    args: [...argv],
    allowPositionals: true,
    options: {
      serve: { type: "boolean", short: "s" },
      title: { type: "string", short: "t" },
      "project-dir": { type: "string", short: "d" },
      port: { type: "string", short: "p" },
      host: { type: "string", short: "H" },
      "max-conversations": { type: "string" },
      "state-dir": { type: "string" },
      "add-dir": { type: "string", multiple: true },
      "agent-program": { type: "string" },
      "agent-arg": { type: "string", multiple: true },
      "agent-env": { type: "string", multiple: true },
    },
  });
  const [subcommand, ...rest] = positionals;
  if (subcommand !== "acp") throw new UsageError(subcommand === undefined ? "missing the acp subcommand" : `unknown subcommand '${subcommand}' (only 'acp')`);
  const { command, projectPath } = agentCommandOf(values, rest);
  const port = Number(values.port ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${values.port}'`);
  const stateDir = values["state-dir"];
  return {
    ...defaults(cwd),
    command,
    projectDir: path.resolve(cwd, values["project-dir"] ?? projectPath ?? "."),
    title: values.title ?? "Symposium",
    host: values.host ?? "localhost",
    port,
    serve: values.serve ?? false,
    maxConversations: maxConversationsOf(values["max-conversations"]),
    additionalDirs: (values["add-dir"] ?? []).map((dir) => path.resolve(cwd, dir)),
    ...(stateDir !== undefined ? { stateDir: path.resolve(cwd, stateDir) } : {}),
  };
}

/** COMMAND (for the shell), or --agent-program and its arguments (no shell); then PATH, and nothing more. */
function agentCommandOf(
  values: { "agent-program"?: string; "agent-arg"?: string[]; "agent-env"?: string[] },
  positionals: string[],
): { command: AgentCommand; projectPath: string | undefined } {
  const program = values["agent-program"];
  if (program === undefined) {
    if (values["agent-arg"] !== undefined || values["agent-env"] !== undefined) throw new UsageError("--agent-arg and --agent-env go with --agent-program");
    const [line, projectPath, ...extra] = positionals;
    if (line === undefined || line.trim() === "")
      throw new UsageError('the agent command is empty: give the command line that starts an ACP agent, e.g. acp "symposium-conductor run"');
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")} (quote the agent command as one argument)`);
    return { command: { kind: "shell", line }, projectPath };
  }
  const [projectPath, ...extra] = positionals;
  if (program.trim() === "") throw new UsageError("--agent-program is empty: give the program that starts an ACP agent");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")} (with --agent-program, the agent's arguments are --agent-arg)`);
  const env: Record<string, string> = {};
  for (const assignment of values["agent-env"] ?? []) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(assignment);
    if (!match) throw new UsageError(`--agent-env takes NAME=VALUE, not '${assignment}'`);
    env[match[1]!] = match[2]!;
  }
  return { command: { kind: "program", program, args: values["agent-arg"] ?? [], env }, projectPath };
}

function maxConversationsOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_CONVERSATIONS;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > MAX_CONVERSATIONS_CEILING) {
    throw new UsageError(`--max-conversations must be a whole number from 1 to ${MAX_CONVERSATIONS_CEILING}, not '${value}'`);
  }
  return count;
}

function defaults(cwd: string): ChatArgs {
  return {
    command: { kind: "shell", line: "" },
    projectDir: cwd,
    title: "Symposium",
    host: "localhost",
    port: 8000,
    serve: false,
    maxConversations: DEFAULT_MAX_CONVERSATIONS,
    additionalDirs: [],
  };
}
