// How long the review of an agent's edit (agent-edits.ts) waits for the user.
// Without `vscode`, so tests drive it with mock timers. The chat server gives
// up a little later (webchat/src/workspace-edits.ts, EDIT_ANSWER_MS), so its
// agent hears "unanswered" from here, and an answer after this one is dropped:
// the agent was told nothing was written, so nothing may be.

/** The user's time to Accept or Reject an agent's edit. */
export const REVIEW_ANSWER_MS = 10 * 60 * 1000;

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
