// The review of an agent's edit (agent-edits.ts) waits for the user for the
// one review deadline (editor-state/src/agent-writes.ts). Without `vscode`, so
// tests drive it with mock timers. Whoever waits for the window's answer (the
// chat server, the editor tools' server) waits a little longer, so its agent
// hears "unanswered" from here, and an answer after this one is dropped: the
// agent was told nothing was written, so nothing may be.

import { REVIEW_ANSWER_MS } from "../../../editor-state/src/index.js";

export { REVIEW_ANSWER_MS };

export const UNANSWERED = Symbol("unanswered");

/** The user's answer, or UNANSWERED once `ms` passed without one. */
export function answerWithin<T>(answer: PromiseLike<T>, ms = REVIEW_ANSWER_MS): Promise<T | typeof UNANSWERED> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(UNANSWERED), ms);
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
