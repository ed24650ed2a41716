// Toad's command line, same words, same defaults:
//   acp COMMAND [PATH] [-t/--title T] [-d/--project-dir D] [-p/--port N] [-H/--host H] [-s/--serve]
// plus one of our own, --max-conversations N (Toad has no such limit).
// Unlike Toad in serve mode, PATH is honoured (Toad loses it there); the
// project directory is --project-dir, else PATH, else the working directory.

import * as path from "node:path";

export class UsageError extends Error {}

/** Each conversation is an agent process (often a conductor, an agent and its tools): a handful is what a person uses. */
export const DEFAULT_MAX_CONVERSATIONS = 16;
const MAX_CONVERSATIONS_CEILING = 1_000;

export interface ChatArgs {
  command: string;
  projectDir: string;
  title: string;
  host: string;
  port: number;
  serve: boolean;
  /** Live conversations (each an agent) at most; a page asking for one more is told why it cannot. */
  maxConversations: number;
  /** Where conversations are kept (history/<workspace hash> below it); undefined: ~/.symposium. */
  stateDir?: string;
  help?: boolean;
  version?: boolean;
}

export const USAGE = `Usage: symposium-webchat acp COMMAND [PATH] [options]

Serves a web chat; each conversation runs COMMAND (an ACP agent command line, run through
the shell) in the project directory. Prints the URL to open, with its secret, on stderr.

Options:
  -s, --serve              serve the web page (the only interface; accepted for Toad compatibility)
  -p, --port N             port (default 8000; 0 picks a free one)
  -H, --host H             address to listen on (default localhost)
  -d, --project-dir D      project directory (default PATH, else the working directory)
  -t, --title T            page title (default Symposium)
      --max-conversations N
                           conversations (each an agent) running at once, at most (default
                           ${DEFAULT_MAX_CONVERSATIONS}); when full, the one longest without a page ends
      --state-dir D        where this workspace's conversations are kept (under D/history/;
                           default ~/.symposium)
  -h, --help | --version

Environment: SYMPOSIUM_CHAT_TOKEN (the secret), SYMPOSIUM_CHAT_ALLOWED_ORIGINS (extra
origins, e.g. code-server's), SYMPOSIUM_CHAT_GRACE_MS (how long a conversation without a
page lives; default 600000). See docs/webchat.md.`;

type ValueOption = "title" | "projectDir" | "port" | "host" | "maxConversations" | "stateDir";

const WITH_VALUE: Record<string, ValueOption> = {
  "-t": "title",
  "--title": "title",
  "-d": "projectDir",
  "--project-dir": "projectDir",
  "-p": "port",
  "--port": "port",
  "-H": "host",
  "--host": "host",
  "--max-conversations": "maxConversations",
  "--state-dir": "stateDir",
};

export function parseArgs(argv: readonly string[], cwd = process.cwd()): ChatArgs {
  if (argv.includes("--help") || argv.includes("-h")) return { ...defaults(cwd), help: true };
  if (argv.includes("--version")) return { ...defaults(cwd), version: true };
  const values: Partial<Record<ValueOption, string>> = {};
  const positional: string[] = [];
  let serve = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "-s" || flag === "--serve") serve = true;
    else if (WITH_VALUE[flag]) {
      const value = inline ?? argv[++index];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      values[WITH_VALUE[flag]] = value;
    } else if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const [subcommand, command, projectPath, ...extra] = positional;
  if (subcommand !== "acp") throw new UsageError(subcommand === undefined ? "missing the acp subcommand" : `unknown subcommand '${subcommand}' (only 'acp')`);
  if (command === undefined || command.trim() === "")
    throw new UsageError('the agent command is empty: give the command line that starts an ACP agent, e.g. acp "symposium-conductor run"');
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")} (quote the agent command as one argument)`);
  const port = Number(values.port ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${values.port}'`);
  return {
    ...defaults(cwd),
    command,
    projectDir: path.resolve(cwd, values.projectDir ?? projectPath ?? "."),
    title: values.title ?? "Symposium",
    host: values.host ?? "localhost",
    port,
    serve,
    maxConversations: maxConversationsOf(values.maxConversations),
    ...(values.stateDir !== undefined ? { stateDir: path.resolve(cwd, values.stateDir) } : {}),
  };
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
  return { command: "", projectDir: cwd, title: "Symposium", host: "localhost", port: 8000, serve: false, maxConversations: DEFAULT_MAX_CONVERSATIONS };
}
