// docs/architecture.md's table "Components and what they may import" says, per folder,
// which other folders it may import. tsc -b enforces the folders' tsconfig.json
// `references`; this keeps the table saying the same, so a reader can trust it.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parse } from "jsonc-parser";
import { REPO_DIR } from "../../support/processes.js";

const ARCHITECTURE = path.join(REPO_DIR, "docs", "architecture.md");
const TABLE_HEADING = "## Components and what they may import";
/** Built or installed, never a component. */
const NOT_COMPONENTS = new Set(["node_modules", "out", "dist"]);

/** The top-level folders that are TypeScript projects (they have a tsconfig.json). */
function projectFolders(): string[] {
  return fs
    .readdirSync(REPO_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !NOT_COMPONENTS.has(entry.name))
    .filter((entry) => fs.existsSync(path.join(REPO_DIR, entry.name, "tsconfig.json")))
    .map((entry) => entry.name)
    .sort();
}

/** Every tsconfig.json in `folder`, its own and its sub-projects' (webchat/page, test/extension-host). */
function tsconfigsOf(folder: string, prefix = folder): string[] {
  return fs.readdirSync(path.join(REPO_DIR, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith(".") || NOT_COMPONENTS.has(entry.name) ? [] : tsconfigsOf(folder, relative);
    return entry.name === "tsconfig.json" ? [relative] : [];
  });
}

/** The other top-level folders `folder`'s projects reference: what tsc -b lets it import. */
function referencedFolders(folder: string): string[] {
  const referenced = tsconfigsOf(folder).flatMap((tsconfig) => {
    const config = parse(fs.readFileSync(path.join(REPO_DIR, tsconfig), "utf8")) as { references?: Array<{ path: string }> };
    return (config.references ?? []).map((reference) => {
      const target = path.relative(REPO_DIR, path.resolve(REPO_DIR, path.dirname(tsconfig), reference.path));
      return target.split(path.sep)[0]!;
    });
  });
  return [...new Set(referenced)].filter((target) => target !== folder).sort();
}

/** The table's rows: each component folder named in the first column → the folders named in the third. */
function tableRows(folders: readonly string[]): Map<string, string[]> {
  const text = fs.readFileSync(ARCHITECTURE, "utf8");
  const start = text.indexOf(TABLE_HEADING);
  assert.ok(start >= 0, `docs/architecture.md has lost its section "${TABLE_HEADING}": restore it`);
  const lines = text
    .slice(start)
    .split("\n")
    .slice(1)
    .filter((line) => line.startsWith("|"));
  const named = (cell: string) => [...cell.matchAll(/`([\w-]+)\/`/g)].map((match) => match[1]!).filter((name) => folders.includes(name));
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(2)) {
    const [components = "", , mayImport = ""] = line.split("|").slice(1);
    for (const component of named(components)) rows.set(component, [...new Set(named(mayImport))].sort());
  }
  return rows;
}

describe("docs/architecture.md's may-import table", () => {
  it("has a row for every folder that is a TypeScript project, and none for another", () => {
    const folders = projectFolders();
    assert.deepEqual([...tableRows(folders).keys()].sort(), folders, "one row per folder with a tsconfig.json");
  });

  it("names, for each folder, exactly the folders its tsconfig.json references", () => {
    const folders = projectFolders();
    const rows = tableRows(folders);
    const wrong = folders.flatMap((folder) => {
      const said = rows.get(folder) ?? [];
      const referenced = referencedFolders(folder);
      return JSON.stringify(said) === JSON.stringify(referenced)
        ? []
        : [`${folder}/: the table says [${said.join(", ")}], its references are [${referenced.join(", ")}]`];
    });
    if (wrong.length > 0) assert.fail(`make docs/architecture.md's table match the tsconfig.json references:\n  ${wrong.join("\n  ")}`);
  });
});
