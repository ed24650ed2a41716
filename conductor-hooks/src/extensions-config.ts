// The config file's `proxies` (seed 001's extensions, the first closest to the
// editor), changed one edit at a time: enable, disable, move, remove, add. Each
// edit is jsonc-parser's modify on the file's own text, so the user's comments
// and layout stay, and is written whole or not at all (config.ts
// editConfigFile). It applies to the next conversation: a chain already
// running keeps the extensions it started with.

import * as fs from "node:fs";
import { applyEdits, findNodeAtLocation, modify, parse as parseJsonc, parseTree, type Node as JsonNode } from "jsonc-parser";
import { isObject } from "../../acp-wire/src/index.js";
import { CONFIG_FORMAT, ConfigError, RUST_BUILTIN_PROXIES, editConfigFile, loadConfig, parseConfig, type ProxyEntry } from "./config.js";

/** An extension's name: it names a component in logs and a folder in the install cache. */
export const EXTENSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** An extension as `extensions list` shows it. */
export interface ListedExtension {
  position: number;
  name: string;
  enabled: boolean;
  /** What starts it: its command line, or "built into Symposium's Rust conductor". */
  runs: string;
  /** Where it came from, as `add` was given it (npx:…, a URL…), when recorded. */
  source?: string;
}

/** The config's extensions in chain order; none when there is no file. */
export function listExtensions(file: string): ListedExtension[] {
  const config = loadConfig(file);
  if (config === null) return [];
  const sources = rawProxies(readText(file));
  return config.proxies.map((entry, index) => {
    const source = sources[index]?.source;
    return {
      position: index + 1,
      name: entry.name,
      enabled: entry.enabled,
      runs: describeRuns(entry),
      ...(typeof source === "string" ? { source } : {}),
    };
  });
}

function describeRuns(entry: ProxyEntry): string {
  if (entry.command !== undefined) return entry.command;
  if ((RUST_BUILTIN_PROXIES as readonly string[]).includes(entry.name)) return "built into Symposium's Rust conductor (symposium-acp-agent)";
  return "no command: this conductor cannot start it";
}

/** Sets `enabled` of the extension `name`. */
export function setEnabled(file: string, name: string, enabled: boolean): void {
  const index = indexOf(file, name);
  edit(file, (text) => applyEdits(text, modify(text, ["proxies", index, "enabled"], enabled, { formattingOptions: CONFIG_FORMAT })));
}

/** Removes the extension `name`; what else the file says stays. */
export function removeExtension(file: string, name: string): void {
  const index = indexOf(file, name);
  edit(file, (text) => {
    const span = entrySpan(text, index);
    return text.slice(0, span.start) + text.slice(span.end);
  });
}

/**
 * Moves the extension `name` one place up (toward the editor), down (toward the agent), or to
 * position `to` (1 is the first, as `list` numbers them). Comments inside the moved entry go with the
 * old place; the entry's own members move.
 */
export function moveExtension(file: string, name: string, to: "up" | "down" | number): number {
  const from = indexOf(file, name);
  const count = rawProxies(readText(file)).length;
  const target = to === "up" ? from - 1 : to === "down" ? from + 1 : to - 1;
  if (!Number.isInteger(target) || target < 0 || target >= count) {
    throw new ConfigError(
      `'${name}' cannot move ${typeof to === "number" ? `to position ${to}` : to}: there are ${count} extensions, and it is number ${from + 1}`,
    );
  }
  if (target === from) return target + 1;
  edit(file, (text) => {
    // The entry's own text moves, with its layout and the comments inside it.
    const span = entrySpan(text, from);
    return insertEntry(text.slice(0, span.start) + text.slice(span.end), target, span.entry);
  });
  return target + 1;
}

/** Adds `entry` last (closest to the agent); a name already there is refused. */
export function appendExtension(file: string, entry: Record<string, unknown> & { name: string }): void {
  const text = readText(file);
  if (rawProxies(text).some((proxy) => proxy.name === entry.name)) {
    throw new ConfigError(`an extension named '${entry.name}' is in ${file} already: choose another name with --name, or remove it first`);
  }
  edit(file, (current) => insertEntry(current, rawProxies(current).length, { value: oneLine(entry), comment: "" }));
}

/** An entry on one line, as the seed writes them: `{ "name": "sparkle", "enabled": true }`. */
function oneLine(entry: Record<string, unknown>): string {
  return `{ ${Object.entries(entry)
    .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join(", ")} }`;
}

/** An entry's text: its value, and the comment at the end of its line when it has the line to itself. */
interface EntryText {
  value: string;
  comment: string;
}

/**
 * `entry` inserted into the proxies list at `index`, on a line of its own indented as its
 * neighbour is. Only that place changes (jsonc-parser's own formatting would lay out the
 * neighbouring entry again); a file without entries gets the list from jsonc-parser.
 */
function insertEntry(text: string, index: number, entry: EntryText): string {
  const entries = proxiesNode(text)?.children ?? [];
  const comment = entry.comment === "" ? "" : ` ${entry.comment}`;
  if (entries.length === 0) {
    const value: unknown = parseJsonc(entry.value, [], { allowTrailingComma: true });
    return applyEdits(text, modify(text, ["proxies"], [value], { formattingOptions: CONFIG_FORMAT }));
  }
  if (index < entries.length) {
    const before = entries[index]!;
    const lineStart = text.lastIndexOf("\n", before.offset - 1) + 1;
    if (!/^[ \t]*$/.test(text.slice(lineStart, before.offset))) return `${text.slice(0, before.offset)}${entry.value}, ${text.slice(before.offset)}`;
    return `${text.slice(0, lineStart)}${indentOf(text, before.offset)}${entry.value},${comment}\n${text.slice(lineStart)}`;
  }
  const last = entries[entries.length - 1]!;
  const span = entrySpan(text, entries.length - 1);
  const lastEnd = last.offset + last.length;
  // The list's own style: a comma after its last entry, or none.
  const trailingComma = /^\s*,/.test(text.slice(lastEnd));
  const withComma = trailingComma ? text : `${text.slice(0, lastEnd)},${text.slice(lastEnd)}`;
  const at = span.end + (trailingComma ? 0 : 1);
  const after = trailingComma ? "," : "";
  if (!span.ownLine) return `${withComma.slice(0, at)} ${entry.value}${after}${withComma.slice(at)}`;
  const newline = withComma[at - 1] === "\n" ? "" : "\n";
  return `${withComma.slice(0, at)}${newline}${indentOf(text, last.offset)}${entry.value}${after}${comment}\n${withComma.slice(at)}`;
}

/**
 * Where the proxies entry `index` is in `text`, with its comma and, when it has its line to
 * itself, the whole line (a comment at its end is its own).
 */
function entrySpan(text: string, index: number): { start: number; end: number; ownLine: boolean; entry: EntryText } {
  const node = proxiesNode(text)!.children![index]!;
  const lineStart = text.lastIndexOf("\n", node.offset - 1) + 1;
  let end = node.offset + node.length;
  const comma = /^[ \t]*,/.exec(text.slice(end));
  if (comma) end += comma[0].length;
  const rest = /^[ \t]*(\/\/[^\n]*?)?[ \t]*(\r?\n|$)/.exec(text.slice(end));
  const ownLine = /^[ \t]*$/.test(text.slice(lineStart, node.offset)) && rest !== null;
  const entry = { value: text.slice(node.offset, node.offset + node.length), comment: ownLine ? (rest[1] ?? "") : "" };
  return ownLine ? { start: lineStart, end: end + rest[0].length, ownLine, entry } : { start: node.offset, end, ownLine, entry };
}

/** The whitespace that starts the line `offset` is on. */
function indentOf(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))![0];
}

function proxiesNode(text: string): JsonNode | undefined {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const node = tree === undefined ? undefined : findNodeAtLocation(tree, ["proxies"]);
  return node?.type === "array" ? node : undefined;
}

/** The position of `name` in the file's proxies, or an error that lists the names there are. */
function indexOf(file: string, name: string): number {
  const config = loadConfig(file);
  if (config === null) throw new ConfigError(noConfig(file));
  const index = config.proxies.findIndex((entry) => entry.name === name);
  if (index >= 0) return index;
  const names = config.proxies.map((entry) => entry.name);
  throw new ConfigError(`no extension named '${name}' in ${file}; ${names.length === 0 ? "it has none" : `there are: ${names.join(", ")}`}`);
}

export function noConfig(file: string): string {
  return (
    `no configuration at ${file}: choose an agent first (\`symposium-conductor registry use <id>\`, ` +
    `or start \`symposium-conductor run\` once and answer its menu), then add extensions`
  );
}

/** The file's own proxy entries, as written (the members config.ts does not read, like "source", kept). */
function rawProxies(text: string): Array<Record<string, unknown>> {
  const value: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const proxies = isObject(value) && Array.isArray(value.proxies) ? value.proxies : [];
  return proxies.map((entry: unknown) => (isObject(entry) ? entry : {}));
}

function readText(file: string): string {
  const config = loadConfig(file); // a file that does not parse is reported as `run` reports it
  if (config === null) throw new ConfigError(noConfig(file));
  return fs.readFileSync(file, "utf8");
}

/** Edits the file, which must still be a config the conductor reads afterwards. */
function edit(file: string, change: (text: string) => string): void {
  editConfigFile(file, (text) => {
    const edited = change(text);
    parseConfig(edited, file);
    return edited;
  });
}
