// The Extensions section's server half (docs/extensions.md): the page's
// requests become the conductor's own `extensions` verbs, run as the CLI runs
// them (`<conductor> extensions list --json | enable | disable | move | remove
// | add`, without a shell, with the `--config FILE` of its `run`), so the chat
// changes the config file exactly as `symposium-conductor extensions` does,
// keeping the user's comments. Each answer is the list as it is now, and what
// the change did (the conductor's line: "… it applies to the next
// conversation") or why not. One change at a time.

import { runForOutput } from "../../acp-wire/src/index.js";
import { EXTENSION_NAME } from "../../conductor-hooks/src/extensions-config.js";
import { errorLine } from "../../loopback-auth/src/index.js";
import type { ExtensionAction, ExtensionItem, ServerMessage } from "../page/protocol.js";
import type { ConductorForSubcommands } from "./agent-catalog.js";

/** `add` may install (cargo, the registry): give it time. */
const CHANGE_TIMEOUT_MS = 10 * 60_000;
const LIST_TIMEOUT_MS = 30_000;
const MAX_SPEC = 2000;
const MAX_ITEMS = 200;
const MAX_TEXT = 300;

export interface ExtensionsRequest {
  action?: unknown;
  name?: unknown;
  to?: unknown;
  spec?: unknown;
}

export interface ExtensionsManagerOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  log(line: string): void;
}

type Reply = (message: ServerMessage) => void;

export class ExtensionsManager {
  private changing = false;

  constructor(
    private readonly conductor: ConductorForSubcommands,
    private readonly options: ExtensionsManagerOptions,
  ) {}

  /** Answers `request` with the list (after the change it asks for, if any). */
  handle(request: ExtensionsRequest, reply: Reply): void {
    let args: string[] | undefined;
    try {
      args = changeArgs(request);
    } catch (error) {
      return void this.answer(reply, false, (error as Error).message);
    }
    if (args === undefined) return void this.answer(reply, true);
    if (this.changing) return void this.answer(reply, false, "another change to the extensions is being saved; try again in a moment");
    this.changing = true;
    void this.change(args, reply).finally(() => (this.changing = false));
  }

  private async change(args: string[], reply: Reply): Promise<void> {
    try {
      await this.run(args, CHANGE_TIMEOUT_MS);
      const said = `${describeChange(args)}: it applies to the next conversation`;
      this.options.log(`extensions ${args.join(" ")}: saved`);
      await this.answer(reply, true, said);
    } catch (error) {
      this.options.log(`extensions ${args.join(" ")} failed: ${errorLine(error)}`);
      await this.answer(reply, false, errorLine(error));
    }
  }

  private async answer(reply: Reply, ok: boolean, message?: string): Promise<void> {
    let extensions: ExtensionItem[] = [];
    try {
      extensions = parseExtensions(await this.run(["list", "--json"], LIST_TIMEOUT_MS));
    } catch (error) {
      ok = false;
      message = `${message ? `${message}; ` : ""}the extensions could not be listed: ${errorLine(error)}`;
    }
    reply({ type: "extensions", extensions, ok, ...(message ? { message: message.slice(0, 4 * MAX_TEXT) } : {}) });
  }

  /** `extensions [--config FILE] <args>` of the chat's conductor, without a shell; resolves with its stdout, rejects with its stderr's last lines. */
  private run(args: string[], timeoutMs: number): Promise<string> {
    const { program, args: leading, env, configArgs } = this.conductor;
    return runForOutput(program, [...leading, "extensions", ...configArgs, ...args], {
      cwd: this.options.cwd,
      env: { ...this.options.env, ...env },
      timeoutMs,
    });
  }
}

/** What a change did, in words, for the page. */
function describeChange(args: string[]): string {
  const [verb, name, where] = args;
  if (verb === "add") return `Added ${where ?? ""} last (closest to the agent)`;
  if (verb === "move") return `Moved ${name ?? ""} ${where === "up" || where === "down" ? where : `to position ${where ?? ""}`}`;
  return `${verb === "remove" ? "Removed" : verb === "enable" ? "Enabled" : "Disabled"} ${name ?? ""}`;
}

/** The conductor's arguments for a change; undefined for `list`. Throws, with what is wrong, for anything else. */
export function changeArgs(request: ExtensionsRequest): string[] | undefined {
  const action = request.action as ExtensionAction;
  const name = (): string => {
    if (typeof request.name !== "string" || !EXTENSION_NAME.test(request.name)) throw new Error("an extension's name: letters, digits, '.', '_' or '-'");
    return request.name;
  };
  switch (action) {
    case "list":
      return undefined;
    case "enable":
    case "disable":
    case "remove":
      return [action, name()];
    case "move": {
      const to = request.to;
      if (to !== "up" && to !== "down" && !(typeof to === "number" && Number.isInteger(to) && to >= 1 && to <= 9999))
        throw new Error("move: up, down or a position");
      return ["move", name(), String(to)];
    }
    case "add": {
      const spec = typeof request.spec === "string" ? request.spec.trim() : "";
      if (spec === "" || spec.length > MAX_SPEC || spec.startsWith("-") || /[\0\r\n]/.test(spec)) {
        throw new Error("add: a built-in (sparkle, ferris, cargo), a path, npx:<package>, pipx:<package>, cargo:<crate>, acp:<id> or an https:// address");
      }
      return ["add", "--", spec];
    }
    default:
      throw new Error(`unknown extensions action ${JSON.stringify(String(action)).slice(0, 40)}`);
  }
}

/** `extensions list --json`, checked and bounded before it reaches a page. */
export function parseExtensions(stdout: string): ExtensionItem[] {
  const value: unknown = JSON.parse(stdout);
  if (!Array.isArray(value)) throw new Error("`extensions list --json` did not answer a JSON list");
  return value.slice(0, MAX_ITEMS).flatMap((entry: unknown, index) => {
    const { name, enabled, runs, source } = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof name !== "string" || !EXTENSION_NAME.test(name)) return [];
    return [
      {
        position: index + 1,
        name,
        enabled: enabled === true,
        runs: typeof runs === "string" ? runs.slice(0, MAX_TEXT) : "",
        ...(typeof source === "string" ? { source: source.slice(0, MAX_TEXT) } : {}),
      },
    ];
  });
}
