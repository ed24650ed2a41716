// extension/README.md's "Commands" table lists every command package.json contributes,
// with its title, and no other: the README once counted six commands when there were eleven.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO_DIR } from "../../support/processes.js";

interface ContributedCommand {
  command: string;
  title: string;
}

function contributedCommands(): ContributedCommand[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_DIR, "package.json"), "utf8")) as { contributes: { commands: ContributedCommand[] } };
  return manifest.contributes.commands;
}

/** The "## Commands" table of extension/README.md: command id → its title cell. */
function readmeCommands(): Map<string, string> {
  const readme = fs.readFileSync(path.join(REPO_DIR, "extension", "README.md"), "utf8");
  const section = readme.split(/^## /m).find((part) => part.startsWith("Commands\n"));
  assert.ok(section, 'extension/README.md has no "## Commands" section: add one with a table of the commands');
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  return new Map(
    rows.map((row) => {
      const [id = "", title = ""] = row.split("|").slice(1, 3);
      return [id.trim().replace(/`/g, ""), title.trim()];
    }),
  );
}

describe("extension/README.md's commands", () => {
  it("are exactly the commands package.json contributes", () => {
    const inManifest = contributedCommands()
      .map((each) => each.command)
      .sort();
    assert.deepEqual([...readmeCommands().keys()].sort(), inManifest, "one row per command of contributes.commands, no other");
  });

  it("carry the titles the manifest gives them", () => {
    const readme = readmeCommands();
    const wrong = contributedCommands().filter((each) => !(readme.get(each.command) ?? "").startsWith(each.title));
    assert.deepEqual(
      wrong.map((each) => `${each.command}: "${each.title}"`),
      [],
      "the title column starts with the manifest's title",
    );
  });
});
