// "Symposium: Manage Extensions" (docs/extensions.md): the config's extensions
// in a QuickPick, in order (the first closest to the editor); picking one
// offers enable/disable, move up, move down and delete; "Add extension…"
// offers the built-ins and a custom spec. Every change runs the conductor's
// own `extensions` verbs (the same code as `symposium-conductor extensions`,
// so the file keeps its comments); the pick then shows the list again, its
// title saying the change applies to the next conversation. Keyboard only is
// enough: every step is a pick or an input box.

import * as vscode from "vscode";
import { runConductor } from "./agent-picker.js";
import { NOTICE_SENTENCE_MAX, noticeText } from "../notice-text.js";

interface Listed {
  position: number;
  name: string;
  enabled: boolean;
  runs: string;
  source?: string;
}

const TITLE = "Symposium: Extensions";
const ADD = "$(add) Add extension…";
const BUILT_INS = ["sparkle", "ferris", "cargo"] as const;
const CUSTOM = "Registry or custom…";
const SPEC_HINT = "a path, npx:<package>, pipx:<package>, cargo:<crate>, acp:<registry id> or https://…/extension.json";

export async function manageExtensions(log: vscode.LogOutputChannel): Promise<void> {
  let said = "";
  for (;;) {
    let listed: Listed[];
    try {
      listed = JSON.parse(await runConductor(["extensions", "list", "--json"])) as Listed[];
    } catch (error) {
      return fail(log, error);
    }
    const change = await chooseChange(listed, said);
    if (change === undefined) return;
    try {
      await runConductor(["extensions", ...change.args]);
      said = `${change.done}: it applies to the next conversation`;
      log.info(`extensions ${change.args.join(" ")}: saved`);
    } catch (error) {
      said = `Not saved: ${(error as Error).message}`;
      log.warn(`extensions ${change.args.join(" ")}: ${(error as Error).message}`);
    }
  }
}

interface Change {
  args: string[];
  /** What it did, in words. */
  done: string;
}

/** The list, then what to do with the one picked; undefined when the user leaves. */
async function chooseChange(listed: Listed[], said: string): Promise<Change | undefined> {
  const rows = listed.map((entry) => ({
    label: `${entry.enabled ? "$(check)" : "$(circle-slash)"} ${entry.name}`,
    description: `${entry.position}. ${entry.enabled ? "enabled" : "disabled"}`,
    detail: entry.runs,
    entry,
  }));
  const picked = await vscode.window.showQuickPick([...rows, { label: ADD, description: "", detail: undefined, entry: undefined }], {
    title: said ? `${TITLE}: ${noticeText(said, NOTICE_SENTENCE_MAX)}` : TITLE,
    placeHolder: "In order: the first closest to the editor, the last closest to the agent. Changes apply to the next conversation.",
    matchOnDescription: true,
  });
  if (picked === undefined) return undefined;
  return picked.entry === undefined ? chooseAddition() : chooseAction(picked.entry, listed.length);
}

async function chooseAction(entry: Listed, count: number): Promise<Change | undefined> {
  const actions: Array<{ label: string; change: Change }> = [
    {
      label: entry.enabled ? "Disable" : "Enable",
      change: { args: [entry.enabled ? "disable" : "enable", entry.name], done: `${entry.enabled ? "Disabled" : "Enabled"} ${entry.name}` },
    },
    ...(entry.position > 1 ? [{ label: "$(arrow-up) Move up", change: { args: ["move", entry.name, "up"], done: `Moved ${entry.name} up` } }] : []),
    ...(entry.position < count ? [{ label: "$(arrow-down) Move down", change: { args: ["move", entry.name, "down"], done: `Moved ${entry.name} down` } }] : []),
    { label: "$(trash) Delete", change: { args: ["remove", entry.name], done: `Removed ${entry.name}` } },
  ];
  const picked = await vscode.window.showQuickPick(actions, { title: `${TITLE}: ${noticeText(entry.name)}`, placeHolder: noticeText(entry.runs) });
  return picked?.change;
}

async function chooseAddition(): Promise<Change | undefined> {
  const kinds = [
    ...BUILT_INS.map((name) => ({ label: name, description: "built into Symposium's Rust conductor" })),
    { label: CUSTOM, description: SPEC_HINT },
  ];
  const kind = await vscode.window.showQuickPick(kinds, { title: `${TITLE}: Add extension`, placeHolder: "Added last, closest to the agent" });
  if (kind === undefined) return undefined;
  const spec =
    kind.label === CUSTOM
      ? await vscode.window.showInputBox({
          title: `${TITLE}: Add extension`,
          prompt: `The extension: ${SPEC_HINT}`,
          ignoreFocusOut: true,
          validateInput: (value) => (value.trim() === "" || value.trim().startsWith("-") ? `Name the extension: ${SPEC_HINT}` : undefined),
        })
      : kind.label;
  if (spec === undefined) return undefined;
  return { args: ["add", "--", spec.trim()], done: `Added ${spec.trim()} last (closest to the agent)` };
}

function fail(log: vscode.LogOutputChannel, error: unknown): void {
  log.error(`Manage Extensions: ${(error as Error).message}`);
  void vscode.window.showErrorMessage(`Symposium: the extensions could not be listed: ${noticeText((error as Error).message, NOTICE_SENTENCE_MAX)}`);
}
