// Review and undo an agent's turn in VS Code (docs/checkpoints.md), from the
// records the conductor's checkpoints wrote, whichever chat ran the turn (Toad,
// the built-in chat, a terminal): `Symposium: Review Agent Changes` opens VS
// Code's multi-file diff (the turn's before-state ↔ the files now), the left
// side read from the shadow repository through a read-only content provider;
// `Symposium: Undo Agent Turn` puts the turn's files back after a
// confirmation naming them, leaving alone (and showing) files changed since
// and files with unsaved edits. And: a file the agent changes on disk while
// it has unsaved edits gets a notification with Compare at once. A turn
// undone here (Undo, Rewind) closes its open reviews, which would show it as
// standing.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { CheckpointStore, DEFAULT_SETTINGS, checkpointsDirectory, type TurnRecord } from "../../../checkpoints/src/index.js";
import { noticeList, noticeText } from "../notice-text.js";

export const CHECKPOINT_SCHEME = "symposium-checkpoint";

export const TURN_COMMANDS = {
  review: "symposium.reviewAgentChanges",
  undo: "symposium.undoAgentTurn",
  /** The chat's bridge requests, by kind (chat-bridge.ts). */
  reviewTurn: "symposium.reviewAgentChanges",
  undoTurn: "symposium.undoAgentTurn",
  /** Only from the chat ("Rewind to here"): not in the palette. */
  rewindTurn: "symposium.rewindToAgentTurn",
} as const;

/** Turns offered in the pickers, newest first. */
const MAX_PICKED = 50;
/** One notification per file per this long, however often the agent writes it. */
const NOTICE_EVERY_MS = 10_000;
/** How long an opened review's tab may take to reach the extension host's tab model after `vscode.changes` returns. */
const REVIEW_TAB_WAIT_MS = 10_000;

interface CheckpointQuery {
  project: string;
  turn: string;
  root: string;
  /** The file (relative to `root`) whose content before the turn this document shows. */
  file: string;
}

export function registerAgentTurns(log: vscode.LogOutputChannel): vscode.Disposable[] {
  let store: Promise<CheckpointStore | null> | null = null;
  const opened = () =>
    (store ??= CheckpointStore.create({
      ...DEFAULT_SETTINGS,
      directory: checkpointsDirectory(process.env),
      log: (line) => log.warn(line),
    }));
  // The before sides of the review being opened, read in one go (two git calls, not two per file).
  const prefetched = new Map<string, string>();
  const provider: vscode.TextDocumentContentProvider = {
    provideTextDocumentContent: async (uri) => {
      const query = JSON.parse(uri.query) as CheckpointQuery;
      const ready = prefetched.get(uri.toString());
      if (ready !== undefined) return ready;
      const bytes = await (await opened())?.fileAt(query.project, query.turn, query.root, query.file, "before");
      return bytes?.toString("utf8") ?? "";
    },
  };
  const reviews = new ReviewTabs(log);
  const review = async (project: string, turn: TurnRecord) => {
    const checkpoints = await opened();
    prefetched.clear();
    if (checkpoints)
      await prefetchBefore(checkpoints, project, turn, prefetched).catch((error: Error) => log.warn(`review of turn ${turn.id}: ${error.message}`));
    await reviews.open(project, turn.id, () => openReview(project, turn));
  };
  return [
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, provider),
    // With a turn named (the chat's Review / Undo turn buttons): that turn; without: the user picks one.
    vscode.commands.registerCommand(TURN_COMMANDS.review, async (named?: unknown) => {
      const picked = named === undefined ? await pickTurn(opened, "Review which turn's changes?") : await namedTurn(opened, named, log);
      if (picked) await review(picked.project, picked.turn);
    }),
    vscode.commands.registerCommand(TURN_COMMANDS.undo, async (named?: unknown) => {
      const checkpoints = await opened();
      const picked = named === undefined ? await pickTurn(opened, "Undo which turn?") : await namedTurn(opened, named, log);
      if (picked && checkpoints) await undo(checkpoints, picked.project, picked.turn, log, review, reviews);
    }),
    vscode.commands.registerCommand(TURN_COMMANDS.rewindTurn, async (named?: unknown) => {
      const checkpoints = await opened();
      const picked = await namedTurn(opened, named, log);
      if (picked && checkpoints) await rewind(checkpoints, picked.project, picked.turn, log, reviews);
    }),
    watchUnsavedFiles(log),
  ];
}

/**
 * The review tabs open per turn, so an undo closes exactly them: a review left open would show the
 * turn as standing. A reopened "(undone)" review is no use: after an undo its two sides are the same.
 * The tab is the one `vscode.changes` opened (VS Code gives no handle, and no stable API type for a
 * multi-file diff's tab input): the tab opened while the command ran whose label is the review's title.
 */
class ReviewTabs {
  private readonly byTurn = new Map<string, vscode.Tab[]>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** Runs `show` (which opens the review titled `title`) and remembers the tab it opened for the turn. */
  async open(project: string, turnId: string, show: () => Promise<string>): Promise<void> {
    const opened: vscode.Tab[] = [];
    let title: string | undefined;
    let found: (() => void) | undefined;
    // VS Code labels the tab with the title and the count of files: "Agent changes: … (3 files)".
    const isReview = (tab: vscode.Tab) => title !== undefined && (tab.label === title || tab.label.startsWith(`${title} (`));
    const listener = vscode.window.tabGroups.onDidChangeTabs((change) => {
      opened.push(...change.opened, ...change.changed);
      if (opened.some(isReview)) found?.();
    });
    try {
      title = await show();
      // The tab model reaches the extension host by its own messages: the tab may come after the command returns.
      if (!opened.some(isReview) && !allTabs().some(isReview))
        await new Promise<void>((resolve) => {
          const deadline = setTimeout(resolve, REVIEW_TAB_WAIT_MS);
          found = () => {
            clearTimeout(deadline);
            resolve();
          };
        });
    } finally {
      listener.dispose();
    }
    const tabs = [...new Set([...opened, ...allTabs()])].filter(isReview);
    if (tabs.length === 0)
      this.log.warn(
        `review of turn ${turnId}: its tab ${JSON.stringify(title)} was not found (tabs now: ${JSON.stringify(allTabs().map((tab) => tab.label))}), so an undo will not close it`,
      );
    const key = reviewKey(project, turnId);
    this.byTurn.set(key, [...new Set([...(this.byTurn.get(key) ?? []), ...tabs])]);
  }

  /** Closes the open reviews of these turns; how many tabs it closed. */
  async closeTurns(project: string, turnIds: readonly string[]): Promise<number> {
    const open = allTabs();
    const tabs = turnIds.flatMap((id) => {
      const remembered = this.byTurn.get(reviewKey(project, id)) ?? [];
      this.byTurn.delete(reviewKey(project, id));
      return remembered.filter((tab) => open.includes(tab)); // the user may have closed some
    });
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    return tabs.length;
  }
}

function reviewKey(project: string, turnId: string): string {
  return JSON.stringify([project, turnId]);
}

function allTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs);
}

/** The turns of the workspace's folders that changed files, newest first; the user picks one (the newest preselected). */
async function pickTurn(opened: () => Promise<CheckpointStore | null>, title: string): Promise<{ project: string; turn: TurnRecord } | undefined> {
  const store = await opened();
  if (store === null) {
    void vscode.window.showWarningMessage("Agent turns are not recorded: `git` is not on PATH.");
    return undefined;
  }
  const turns = (vscode.workspace.workspaceFolders ?? []).flatMap((folder) => {
    try {
      return store.list(folder.uri.fsPath).records.map((turn) => ({ project: folder.uri.fsPath, turn }));
    } catch {
      return []; // a folder that cannot be a project (the home folder, a remote one)
    }
  });
  const changed = turns
    .filter(({ turn }) => turn.state === "done" && turn.undoneAt === undefined && filesOf(turn).length > 0)
    .sort((a, b) => b.turn.id.localeCompare(a.turn.id))
    .slice(0, MAX_PICKED);
  if (changed.length === 0) {
    void vscode.window.showInformationMessage("No agent turn changed files in this workspace yet.");
    return undefined;
  }
  const items = changed.map((entry) => ({
    label: entry.turn.prompt || "(no text)",
    description: `${countFiles(filesOf(entry.turn).length)} · ${new Date(entry.turn.startedAt).toLocaleString()}`,
    detail: filesOf(entry.turn)
      .map((file) => file.relative)
      .slice(0, 6)
      .join(", "),
    entry,
  }));
  return (await vscode.window.showQuickPick(items, { title, matchOnDetail: true }))?.entry;
}

/** The turn `named` ({ project, turn }) names, when its project is one of this window's workspace folders and it changed files there. */
async function namedTurn(
  opened: () => Promise<CheckpointStore | null>,
  named: unknown,
  log: vscode.LogOutputChannel,
): Promise<{ project: string; turn: TurnRecord } | undefined> {
  const { project, turn: id } = (typeof named === "object" && named !== null ? named : {}) as { project?: unknown; turn?: unknown };
  const store = await opened();
  const folder = (vscode.workspace.workspaceFolders ?? []).find((candidate) => typeof project === "string" && sameDirectory(candidate.uri.fsPath, project));
  const turn = store && folder ? listed(store, folder.uri.fsPath).find((record) => record.id === id) : undefined;
  if (turn?.state !== "done" || filesOf(turn).length === 0) {
    log.warn(`the chat named turn ${JSON.stringify(id)} of ${JSON.stringify(project)}, which is not a recorded turn of this workspace that changed files`);
    void vscode.window.showWarningMessage("Symposium: that agent turn is not recorded for this workspace (pruned, or another project's).");
    return undefined;
  }
  if (turn.undoneAt !== undefined) {
    // A chat page that has not heard of the undo yet: nothing to review or undo again.
    void vscode.window.showInformationMessage("Symposium: that agent turn is already undone.");
    return undefined;
  }
  return { project: folder!.uri.fsPath, turn };
}

function listed(store: CheckpointStore, dir: string): TurnRecord[] {
  try {
    return store.list(dir).records;
  } catch {
    return []; // a folder that cannot be a project
  }
}

/** Whether two paths are one directory (the records keep real paths). */
function sameDirectory(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

function filesOf(turn: TurnRecord): Array<{ root: string; relative: string; before: string | null; status: string }> {
  return turn.roots.flatMap((root) =>
    root.files.flatMap((file) => {
      const now = { root: root.dir, relative: file.path, before: file.status === "added" ? null : (file.from ?? file.path), status: file.status };
      // A rename shows as its old file gone and its new one there.
      return file.status === "renamed" && file.from ? [now, { root: root.dir, relative: file.from, before: file.from, status: "deleted" }] : [now];
    }),
  );
}

/**
 * The document of a reviewed file as it was before the turn: `before`'s content (the file itself, or the
 * one a rename came from) under the path of the file shown. VS Code's multi-file diff labels an entry
 * whose two sides differ in path as renamed ("R", the old name struck through): same path, a modified file.
 */
function beforeUri(project: string, turn: TurnRecord, root: string, shown: string, before: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: CHECKPOINT_SCHEME,
    path: vscode.Uri.file(path.join(root, shown)).path,
    query: JSON.stringify({ project, turn: turn.id, root, file: before } satisfies CheckpointQuery),
  });
}

/** Reads every before side of the turn's review into `into` (by document URI), per directory in one batch. */
async function prefetchBefore(store: CheckpointStore, project: string, turn: TurnRecord, into: Map<string, string>): Promise<void> {
  const byRoot = new Map<string, string[]>();
  for (const file of filesOf(turn)) if (file.before !== null) byRoot.set(file.root, [...(byRoot.get(file.root) ?? []), file.before]);
  for (const [root, relatives] of byRoot) {
    const contents = await store.filesAt(project, turn.id, root, relatives, "before");
    for (const file of filesOf(turn))
      if (file.root === root && file.before !== null && contents.has(file.before))
        into.set(beforeUri(project, turn, root, file.relative, file.before).toString(), contents.get(file.before)?.toString("utf8") ?? "");
  }
}

/** VS Code's multi-file diff: each file as it was before the turn ↔ as it is now; no before side: added ("A"), gone now: deleted ("D"). */
/** Opens the review; its title. */
async function openReview(project: string, turn: TurnRecord): Promise<string> {
  const resources = filesOf(turn).flatMap((file) => {
    const now = vscode.Uri.file(path.join(file.root, file.relative));
    // The records are on this machine's disk, and so are the files they name.
    const after = fs.existsSync(now.fsPath) ? now : undefined;
    const before = file.before === null ? undefined : beforeUri(project, turn, file.root, file.relative, file.before);
    return before || after ? [[now, before, after]] : []; // a file the turn added, gone since: nothing to compare
  });
  const title = `Agent changes: ${turn.prompt || turn.id}`;
  await vscode.commands.executeCommand("vscode.changes", title, resources);
  return title;
}

async function undo(
  store: CheckpointStore,
  project: string,
  turn: TurnRecord,
  log: vscode.LogOutputChannel,
  review: (project: string, turn: TurnRecord) => Promise<void>,
  reviews: ReviewTabs,
): Promise<void> {
  const files = [...new Set(filesOf(turn).map((file) => file.relative))];
  const answer = await vscode.window.showWarningMessage(
    `Undo the agent's turn "${noticeText(turn.prompt || turn.id)}"?`,
    {
      modal: true,
      detail: `These files go back to how they were before it:\n${noticeList(files, { separator: "\n", shown: 30 })}\n\nFiles changed since are left as they are.`,
    },
    "Undo Turn",
  );
  if (answer !== "Undo Turn") return;
  const unsaved = new Set(vscode.workspace.textDocuments.filter((doc) => doc.isDirty && doc.uri.scheme === "file").map((doc) => path.resolve(doc.uri.fsPath)));
  const report = await store.restore(project, turn.id, (file) => (unsaved.has(path.resolve(file)) ? "unsaved changes in the editor" : null));
  log.info(
    `undid turn ${turn.id}: restored ${report.restored.join(", ") || "nothing"}; conflicts: ${JSON.stringify(report.conflicts)}; never stored: ${JSON.stringify(report.skipped)}`,
  );
  const closed = reviewsClosed(await reviews.closeTurns(project, [turn.id]), 1);
  // Named in the log only: a count here, so no name the project chose reaches the message.
  const notStored =
    (report.skipped.length === 0
      ? ""
      : ` ${countFiles(report.skipped.length)} never stored (too big, or a name not in UTF-8) left as they are (named in the Symposium log).`) + closed;
  if (report.conflicts.length === 0) {
    void vscode.window.showInformationMessage(`Undone: ${countFiles(report.restored.length)} put back.${notStored}`);
    return;
  }
  const choice = await vscode.window.showWarningMessage(
    `Undone: ${countFiles(report.restored.length)} put back; ${report.conflicts.length} left as they are: ${noticeList(report.conflicts.map((conflict) => `${conflict.path} (${conflict.reason})`))}.${notStored}`,
    "Review",
  );
  if (choice === "Review") await review(project, turn);
}

/** Undoes the conversation's turns after `turn`, newest first, after a confirmation; files changed since are left alone and named. */
async function rewind(store: CheckpointStore, project: string, turn: TurnRecord, log: vscode.LogOutputChannel, reviews: ReviewTabs): Promise<void> {
  const answer = await vscode.window.showWarningMessage(
    `Rewind the conversation to just after "${noticeText(turn.prompt || turn.id)}"?`,
    { modal: true, detail: "Every later turn of this conversation that changed files is undone, newest first. Files changed since are left as they are." },
    "Rewind",
  );
  if (answer !== "Rewind") return;
  const unsaved = new Set(vscode.workspace.textDocuments.filter((doc) => doc.isDirty && doc.uri.scheme === "file").map((doc) => path.resolve(doc.uri.fsPath)));
  const reports = await store.rewind(project, turn.id, (file) => (unsaved.has(path.resolve(file)) ? "unsaved changes in the editor" : null));
  const restored = new Set(reports.flatMap((report) => report.restored));
  const conflicts = reports.flatMap((report) => report.conflicts.map((conflict) => `${conflict.path} (${conflict.reason})`));
  log.info(`rewound to turn ${turn.id}: ${reports.length} turns undone; restored ${[...restored].join(", ") || "nothing"}; conflicts: ${conflicts.join(", ")}`);
  const closed = reviewsClosed(
    await reviews.closeTurns(
      project,
      reports.map((report) => report.turn.id),
    ),
    reports.length,
  );
  const message = `Rewound: ${reports.length} turn${reports.length === 1 ? "" : "s"} undone, ${countFiles(restored.size)} put back`;
  if (conflicts.length === 0) void vscode.window.showInformationMessage(`${message}.${closed}`);
  else void vscode.window.showWarningMessage(`${message}; left as they are: ${noticeList(conflicts)}${closed && `.${closed}`}`);
}

/** A file changed on disk while its editor holds unsaved edits: say so at once, with Compare (VS Code says it only at save). */
function watchUnsavedFiles(log: vscode.LogOutputChannel): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher("**/*", true, false, true);
  const noticed = new Map<string, number>();
  watcher.onDidChange((uri) => {
    const doc = vscode.workspace.textDocuments.find((candidate) => candidate.uri.toString() === uri.toString());
    if (!doc?.isDirty) return;
    const last = noticed.get(uri.fsPath) ?? 0;
    if (Date.now() - last < NOTICE_EVERY_MS) return;
    noticed.set(uri.fsPath, Date.now());
    const name = vscode.workspace.asRelativePath(uri);
    log.info(`${name} changed on disk while it has unsaved changes in the editor`);
    void vscode.window.showWarningMessage(`${noticeText(name)} changed on disk while it has unsaved changes in the editor.`, "Compare").then(async (choice) => {
      if (choice !== "Compare") return;
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand("workbench.files.action.compareWithSaved");
    });
  });
  return watcher;
}

/** What an undo's message adds when it closed reviews of the turns it undid. */
function reviewsClosed(count: number, turns: number): string {
  return count === 0 ? "" : ` Closed ${count === 1 ? "the review" : `${count} reviews`} of the undone turn${turns === 1 ? "" : "s"}.`;
}

function countFiles(count: number): string {
  return `${count} file${count === 1 ? "" : "s"}`;
}
