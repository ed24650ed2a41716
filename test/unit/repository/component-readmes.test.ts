// Each top-level folder is a component whose README names every source file in it, so
// that a reader finds any file from its folder's README. A file is named by its path
// in the folder (`src/router.ts`) or by its name alone (`router.ts`); a name two files
// share must then be written once for each.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO_DIR } from "../../support/processes.js";
import { COMPONENTS } from "../../support/components.js";

/** What counts as a source file (data, configuration and prose do not). */
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|css|html|sh|py)$/;
/** Built or installed, never written by hand. */
const NOT_SOURCE = new Set(["node_modules", "out", "dist"]);

/** The source files under `dir`, as paths relative to it with forward slashes. */
function sourceFiles(dir: string, prefix = ""): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return entry.name.startsWith(".") || NOT_SOURCE.has(entry.name) ? [] : sourceFiles(dir, relative);
    return entry.isFile() && SOURCE.test(entry.name) ? [relative] : [];
  });
}

/** The files of `component` its README does not name, as "README → file" lines. */
function unnamedFiles(component: string): string[] {
  const dir = path.join(REPO_DIR, component);
  const readmeFile = path.join(dir, "README.md");
  if (!fs.existsSync(readmeFile)) return [`${component}/README.md is missing: it should name each of ${component}'s source files`];
  const readme = fs.readFileSync(readmeFile, "utf8");
  const files = sourceFiles(dir);
  const nameCount = new Map<string, number>();
  for (const file of files) nameCount.set(path.posix.basename(file), (nameCount.get(path.posix.basename(file)) ?? 0) + 1);
  /** How many times the README names `text` as a word of its own (not inside a longer path or name). */
  const mentions = (text: string) => readme.match(new RegExp(`(?<![\\w./-])${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w/-])`, "g"))?.length ?? 0;
  // Two files of one name (src/x.ts, page/x.ts): each by its path, or the name as often as there are files of it.
  return files
    .filter((file) => mentions(file) === 0 && mentions(path.posix.basename(file)) < (nameCount.get(path.posix.basename(file)) ?? 1))
    .map((file) => `${component}/README.md does not name ${component}/${file}`);
}

/** The folders CONTRIBUTING.md's "This repository" table has a row for, by their first cell (`extension/`). */
function contributingTableFolders(): string[] {
  const text = fs.readFileSync(path.join(REPO_DIR, "CONTRIBUTING.md"), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith("This repository\n")) ?? "";
  return [...section.matchAll(/^\| `([\w-]+)\/` /gm)].map((match) => match[1]!);
}

describe("component READMEs", () => {
  it("name every source file of their folder", () => {
    const unnamed = COMPONENTS.flatMap(unnamedFiles);
    if (unnamed.length > 0) assert.fail(`add each file to its folder's README, with what it is for:\n  ${unnamed.join("\n  ")}`);
  });

  it("are each linked from CONTRIBUTING.md's table of the repository's folders", () => {
    const listed = contributingTableFolders();
    assert.deepEqual(
      COMPONENTS.filter((component) => !listed.includes(component)),
      [],
      'add a row for each to the "This repository" table of CONTRIBUTING.md, with a link to its README',
    );
  });

  it("leave out no top-level folder that has a tsconfig.json", () => {
    const folders = fs
      .readdirSync(REPO_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "test" && !NOT_SOURCE.has(entry.name))
      .filter((entry) => fs.existsSync(path.join(REPO_DIR, entry.name, "tsconfig.json")))
      .map((entry) => entry.name);
    assert.deepEqual(
      folders.filter((folder) => !COMPONENTS.includes(folder)),
      [],
      "a new component: add it to PRODUCTION_COMPONENTS (or COMPONENTS) in test/support/components.ts",
    );
  });
});
