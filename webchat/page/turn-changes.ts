// "N files changed" after a turn that changed files (or why a turn's changes
// were not recorded) (its checkpoint record,
// docs/checkpoints.md), with Review and Undo turn: VS Code runs those for this
// turn (bridge.ts asks it). Outside VS Code's panel: the text only, and where
// the command line does the same. A turn undone since (the server follows its
// record) says "Undone" and offers nothing; "Rewind to here" only where a
// later turn still stands.

import { h } from "./dom.js";
import { turnRequest } from "./bridge.js";
import type { TranscriptEvent } from "./protocol.js";

type TurnUndone = Extract<TranscriptEvent, { kind: "turnUndone" }>;

export function turnChangesNote(event: Extract<TranscriptEvent, { kind: "turnChanges" }>): HTMLElement {
  if (event.notRecorded !== undefined) {
    return h(
      "div",
      { class: "meta turn-changes turn-not-recorded", "data-turn": event.turn },
      `This turn's changes were not recorded, so it has no Review or Undo: ${event.notRecorded}`,
    );
  }
  const summary = `${event.count} file${event.count === 1 ? "" : "s"} changed`;
  const title = event.files.join("\n") + (event.count > event.files.length ? `\n… and ${event.count - event.files.length} more` : "");
  const note = h("div", { class: "meta turn-changes", "data-turn": event.turn }, h("span", { title }, summary));
  if (window.parent === window) {
    note.append(` (symposium-conductor checkpoints diff ${event.turn})`);
    return note;
  }
  const button = (label: string, kind: "reviewTurn" | "undoTurn" | "rewindTurn", tooltip: string) => {
    const element = h("button", { class: `turn-${kind.slice(0, -"Turn".length)}`, title: tooltip }, label);
    element.addEventListener("click", () => turnRequest(kind, event.project, event.turn));
    return element;
  };
  note.append(
    button("Review", "reviewTurn", "Open this turn's changes in VS Code's diff editor"),
    button("Undo turn", "undoTurn", "Put this turn's files back as they were before it (files changed since are left alone)"),
    button("Rewind to here", "rewindTurn", "Undo every later turn of this conversation, newest first (files changed since are left alone)"),
  );
  return note;
}

/** The note of the turn `event` names, in `root`, says it was undone, with no button left. */
export function markUndone(root: HTMLElement, event: TurnUndone): void {
  const note = root.querySelector<HTMLElement>(`.turn-changes[data-turn="${CSS.escape(event.turn)}"]`);
  if (!note || note.classList.contains("undone")) return;
  note.classList.add("undone");
  const summary = note.querySelector("span");
  note.replaceChildren(
    ...(summary ? [summary] : []),
    h("span", { class: "turn-undone-label", title: "Its files were put back as they were before it" }, "Undone"),
  );
}

/** "Rewind to here" only on a turn that has a later one still standing: rewinding to the last would undo nothing. */
export function offerRewinds(root: HTMLElement): void {
  const notes = [...root.querySelectorAll<HTMLElement>(".turn-changes:not(.turn-not-recorded)")];
  let laterStands = false;
  for (const note of notes.reverse()) {
    const rewind = note.querySelector<HTMLButtonElement>(".turn-rewind");
    if (rewind) rewind.hidden = !laterStands;
    laterStands ||= !note.classList.contains("undone");
  }
}
