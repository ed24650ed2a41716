// `symposium-conductor extensions list | add | enable | disable | move | remove`:
// the config's `proxies` (seed 001's extensions) managed from the command line,
// as the chat manages them, for Toad and CLI users. `list` prints on stdout
// (`--json`: as JSON); every change is said on stderr, and applies to the next
// conversation.

import { UsageError, parseCommandLine, printLine, type Logger } from "../../acp-wire/src/index.js";
import { defaultConfigPath, loadConfig } from "./config.js";
import { ADD_KINDS, extensionEntry } from "./extensions-add.js";
import { appendExtension, listExtensions, moveExtension, noConfig, removeExtension, setEnabled, type ListedExtension } from "./extensions-config.js";

export const EXTENSIONS_USAGE =
  "extensions list [--json] | add <spec> [--name NAME] | enable <name> | disable <name> | move <name> up|down|<position> | remove <name>, " +
  "with [--config FILE]";

export interface ExtensionsCliContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  log: Logger;
  /** How to start this conductor with other arguments (launcher.ts), for registry resolution. */
  selfCommand: (configPath: string, args: string[]) => string[];
}

const NEXT = "it applies to the next conversation";

export async function extensionsCommand(args: string[], context: ExtensionsCliContext): Promise<number> {
  const { values, positionals } = parseArgs(args);
  const [verb, name, where, ...extra] = positionals;
  const file = values.config ?? defaultConfigPath(context.env);
  const expect = (count: number): void => {
    if (positionals.length !== count || extra.length > 0) throw new UsageError(EXTENSIONS_USAGE);
  };
  switch (verb) {
    case "list":
      expect(1);
      return printLine(values.json ? JSON.stringify(listExtensions(file)) : describeList(listExtensions(file), file));
    case "enable":
    case "disable":
      expect(2);
      setEnabled(file, name!, verb === "enable");
      context.log(`${verb}d '${name}' in ${file}; ${NEXT}`);
      return 0;
    case "remove":
      expect(2);
      removeExtension(file, name!);
      context.log(`removed '${name}' from ${file}; ${NEXT}`);
      return 0;
    case "move": {
      expect(3);
      const position = moveExtension(file, name!, parsePlace(where!));
      context.log(`'${name}' is now extension ${position} in ${file}; ${NEXT}`);
      return 0;
    }
    case "add":
      expect(2);
      return add(name!, values.name, file, context);
    default:
      throw new UsageError(EXTENSIONS_USAGE);
  }
}

async function add(spec: string, name: string | undefined, file: string, context: ExtensionsCliContext): Promise<number> {
  if (loadConfig(file) === null) throw new UsageError(noConfig(file));
  const entry = await extensionEntry(spec, name, {
    configPath: file,
    cwd: context.cwd,
    log: context.log,
    env: context.env,
    selfCommand: (args) => context.selfCommand(file, args),
  });
  appendExtension(file, entry);
  context.log(`added '${entry.name}' last (closest to the agent) in ${file}; ${NEXT}`);
  return 0;
}

function parsePlace(text: string): "up" | "down" | number {
  if (text === "up" || text === "down") return text;
  if (/^[1-9][0-9]{0,3}$/.test(text)) return Number(text);
  throw new UsageError(`move takes up, down or a position (1 is closest to the editor), not '${text}'`);
}

function parseArgs(args: string[]) {
  try {
    return parseCommandLine({
      args,
      allowPositionals: true,
      options: { config: { type: "string" }, json: { type: "boolean" }, name: { type: "string" } },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${EXTENSIONS_USAGE})`);
  }
}

function describeList(extensions: ListedExtension[], file: string): string {
  if (extensions.length === 0) return `No extensions in ${file}. Add one with: symposium-conductor extensions add <spec>, where <spec> is ${ADD_KINDS}.`;
  const lines = extensions.map(
    (entry) => `${entry.position}. ${entry.name} (${entry.enabled ? "enabled" : "disabled"}): ${entry.runs}${entry.source ? ` [from ${entry.source}]` : ""}`,
  );
  return [`Extensions in ${file}, the first closest to the editor:`, ...lines].join("\n");
}
