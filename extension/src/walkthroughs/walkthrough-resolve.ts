// Where a walkthrough's comments go (docs/walkthroughs.md): each location
// resolved in this window to real places inside the workspace. `path:line`
// and `path:start-end` are checked against the file; `symbol:name` asks VS
// Code's workspace symbol search (the language servers) for the definitions
// of exactly that name, as find_definitions does by name; `search:path:text`
// finds the file's lines holding the text. Several places are kept for the
// user to pick from; none, or a path outside the workspace, comes back as
// the reason, never dropped.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { LIMITS } from "../../../editor-tools/src/protocol.js";
import { readDisk } from "../../../editor-tools/src/read-disk.js";
import type { WalkthroughLocation } from "../../../editor-tools/src/walkthrough-format.js";
import { realPathOrNearest } from "../../../editor-tools/src/workspace-paths.js";
import { insideFolders } from "../../../editor-tools/src/workspace-paths.js";

/** A place in a file: its real path and 1-based lines. */
export interface Place {
  path: string;
  startLine: number;
  endLine: number;
}

export type Resolution = { places: Place[] } | { places: []; problem: string };

/** Places a search may offer: more would make a pick list no one reads. */
const MAX_SEARCH_PLACES = 20;

export function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
}

/** A walkthrough's base folder as a real path: a workspace folder or a folder inside one; undefined otherwise. */
export function baseFolderInside(folder: string): string | undefined {
  const folders = workspaceFolders();
  const real = realPathOrNearest(path.resolve(folders[0] ?? "/", folder));
  if (real === undefined) return undefined; // a loop of links, or too many
  const inside = folders.some((each) => realPathOrNearest(each) === real) ? real : insideFolders(real, folders);
  return inside !== undefined && fs.existsSync(inside) && fs.statSync(inside).isDirectory() ? inside : undefined;
}

/** `written` (absolute, or relative to `base`) as a real path inside the workspace; else a sentence saying why not. */
export function pathInside(written: string, base: string): string | { problem: string } {
  const absolute = path.resolve(base, written);
  const real = insideFolders(absolute, workspaceFolders());
  if (real === undefined) return { problem: `${written} is outside the workspace folders: refused` };
  if (!fs.existsSync(real)) return { problem: `${written}: no such file` };
  return real;
}

/** The file's text as the editor has it (unsaved changes included), else from the disk, bounded. */
function textOf(real: string): string {
  const open = vscode.workspace.textDocuments.find((document) => document.uri.scheme === "file" && document.uri.fsPath === real);
  return open?.getText() ?? readDisk(real, workspaceFolders());
}

export async function resolveLocation(location: WalkthroughLocation, base: string): Promise<Resolution> {
  try {
    if (location.kind === "symbol") return await symbolPlaces(location.name);
    const real = pathInside(location.path, base);
    if (typeof real !== "string") return { places: [], problem: real.problem };
    const lines = textOf(real).split(/\r?\n/);
    if (location.kind === "lines") {
      if (location.startLine > lines.length) return { places: [], problem: `${location.path} has ${lines.length} lines, not ${location.startLine}` };
      return { places: [{ path: real, startLine: location.startLine, endLine: Math.min(location.endLine, lines.length) }] };
    }
    const found: Place[] = [];
    lines.forEach((line, index) => {
      if (found.length < MAX_SEARCH_PLACES && line.includes(location.text)) found.push({ path: real, startLine: index + 1, endLine: index + 1 });
    });
    return found.length > 0 ? { places: found } : { places: [], problem: `no line of ${location.path} contains ${JSON.stringify(location.text)}` };
  } catch (error) {
    return { places: [], problem: (error as Error).message };
  }
}

/** The definitions of exactly `name` inside the workspace, as VS Code's workspace symbol search (the language servers) finds them. */
async function symbolPlaces(name: string): Promise<Resolution> {
  const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", name)) ?? [];
  const places = found
    .filter((symbol) => symbol.name === name || symbol.name.replace(/\(.*$/, "") === name)
    .filter((symbol) => symbol.location.uri.scheme === "file")
    .map((symbol) => ({ real: insideFolders(symbol.location.uri.fsPath, workspaceFolders()), range: symbol.location.range }))
    .filter((symbol): symbol is { real: string; range: vscode.Range } => symbol.real !== undefined)
    .slice(0, LIMITS.maxNamedSymbols)
    .map(({ real, range }) => ({ path: real, startLine: range.start.line + 1, endLine: range.end.line + 1 }));
  if (places.length > 0) return { places };
  return { places: [], problem: `no definition of ${name} in the workspace (VS Code's language servers found ${found.length} near matches)` };
}
