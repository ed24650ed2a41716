// An agent's fs/write_text_file, offered to VS Code first:
// the server asks the attached pages that said they are in VS Code's panel
// (`inEditor`) with `applyEdit`; such a page hands it through the bridge to the
// extension, which applies it to the open document as a workspace edit
// (undoable) or lets the user review it. The first page to answer anything but
// "notOpen" decides; when every page says "notOpen" (or none is in VS Code)
// the server writes to disk as before. No answer in time is "unanswered", and
// a page that leaves before answering is "pageLeft" (it may have been showing
// a review, or its window holds the file unsaved): the write is refused, never
// made behind the user's back. A write too large for the bridge is offered
// without its content (`tooLarge`): VS Code refuses it when the file is open
// there (it cannot be reviewed) and answers "notOpen" otherwise. Ids are
// random: an answer counts only for a write this server offered, from a page
// it offered it to.

import * as crypto from "node:crypto";
import * as path from "node:path";
import { REVIEW_ANSWER_GRACE_MS, REVIEW_ANSWER_MS, unansweredMessage, unsavedChangesMessage } from "../../editor-state/src/index.js";
import { unsavedChangesError } from "../../editor-context-proxy/src/index.js";
import { isEditResult, MAX_BRIDGE_TEXT, type EditResult } from "../../webview/src/panel-messages.js";
import type { ProjectFiles } from "./project-files.js";

/**
 * How long a page may take to answer before the write is refused. The
 * extension's review gives the user the one review deadline and then answers
 * "unanswered" itself (editor-state/src/agent-writes.ts); this backstop, that
 * and the answer's way back, covers a page that never answers at all.
 */
export const EDIT_ANSWER_MS = REVIEW_ANSWER_MS + REVIEW_ANSWER_GRACE_MS;

/** What an offer may end in: a page's answer, or that a page asked left before answering. */
export type OfferResult = EditResult | "pageLeft";

/** Posts the request to every attached page; returns those it went to (each answers for itself). */
export type EditSender = (message: { type: "applyEdit"; id: string; path: string; content: string; tooLarge?: boolean }) => object[];

interface Pending {
  /** The pages yet to answer. */
  waiting: Set<object>;
  settle(page: object, result: OfferResult): void;
}

export class WorkspaceEdits {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly send: EditSender,
    private readonly answerMs = EDIT_ANSWER_MS,
  ) {}

  /** What VS Code made of the write ("notOpen": write it to disk; "rejected", "unanswered", "pageLeft": write nothing). */
  offer(path: string, content: string): Promise<OfferResult> {
    const id = `edit-${crypto.randomBytes(18).toString("base64url")}`;
    const pages = this.send(
      content.length > MAX_OFFERED_CHARS ? { type: "applyEdit", id, path, content: "", tooLarge: true } : { type: "applyEdit", id, path, content },
    );
    if (pages.length === 0) return Promise.resolve("notOpen");
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish("unanswered"), this.answerMs);
      const finish = (result: OfferResult) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(result);
      };
      this.pending.set(id, {
        waiting: new Set(pages),
        settle: (page, result) => {
          const entry = this.pending.get(id);
          if (!entry?.waiting.delete(page)) return;
          if (result !== "notOpen") return finish(result);
          if (entry.waiting.size === 0) finish("notOpen");
        },
      });
    });
  }

  /** A page's answer (`editResult`); unknown ids and values are ignored. */
  answer(page: object, id: unknown, result: unknown): void {
    if (typeof id !== "string" || !isEditResult(result)) return;
    this.pending.get(id)?.settle(page, result);
  }

  /** A page left: what it was asked and had not answered is refused ("pageLeft"), not written to disk. */
  pageLeft(page: object): void {
    for (const entry of [...this.pending.values()]) entry.settle(page, "pageLeft");
  }
}

/** The largest write whose content is offered to VS Code (the bridge's cap); a larger one is offered as `tooLarge`. */
export const MAX_OFFERED_CHARS = MAX_BRIDGE_TEXT;

/**
 * The real absolute path to offer VS Code for an agent's write, or undefined
 * (write to disk as before): its folder must exist inside the project (the
 * same check as a terminal's working directory).
 */
export function editorPath(files: Pick<ProjectFiles, "directory">, projectDir: string, requested: string, content: string): string | undefined {
  if (typeof requested !== "string" || typeof content !== "string") return undefined;
  const absolute = path.resolve(projectDir, requested);
  try {
    return path.join(files.directory(path.dirname(absolute)), path.basename(absolute));
  } catch {
    return undefined; // refused or missing: ProjectFiles.write refuses it with its own message, or creates the folders
  }
}

/**
 * The error the agent gets for a write VS Code did not take, or undefined when it was applied or is the
 * server's to write. A write refused for the editor's unsaved changes gets the very error the
 * editor-context proxy gives (unsaved-files.ts), the path shown relative to `folders`.
 */
export function writeRefusal(
  result: OfferResult,
  requested: string,
  chars: number,
  folders: string[],
): { code: number; message: string; data?: unknown } | undefined {
  if (result === "unsaved") return unsavedChangesError(requested, folders);
  const message = refusal(result, requested, chars);
  return message === undefined ? undefined : { code: -32603, message };
}

/** Why the agent's write of `chars` characters to `requested` was not made, or undefined when it was (applied) or is the server's to write (notOpen). */
export function refusal(result: OfferResult, requested: string, chars: number): string | undefined {
  switch (result) {
    case "applied":
    case "notOpen":
      return undefined;
    case "rejected":
      return `the user rejected the edit to ${requested}`;
    case "unanswered":
      return unansweredMessage(requested);
    case "unsaved":
      return unsavedChangesMessage(requested);
    case "pageLeft":
      return `the chat in VS Code closed before it answered for the edit to ${requested}; nothing was written (ask again once the chat is open)`;
    case "changed":
      return `the user changed the same part of ${requested} in the editor during the review; nothing was written (read it again)`;
    case "failed":
      return chars > MAX_OFFERED_CHARS
        ? `the edit to ${requested} is too large to review in VS Code, where the file is open (${chars} characters; at most ${MAX_OFFERED_CHARS}); nothing was written`
        : `VS Code could not apply the edit to ${requested}; nothing was written`;
  }
}
