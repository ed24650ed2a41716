// Turn checkpoints (docs/checkpoints.md): an in-process component beside the
// editor-context hook, under the same condition (SYMPOSIUM_EDITOR_STATE_FILE
// set), so Toad, the built-in chat and any client of this conductor get it.
// It learns each session's directories from session/new, session/load and
// session/resume, holds each session/prompt until the checkpoint store has
// snapshotted them (at most its budget), and finishes the turn once the
// prompt's answer has passed back. The store is the `checkpoints/` component.

import type * as acp from "@agentclientprotocol/sdk";
import * as path from "node:path";
import { SESSION_PROMPT, isObject, isRequest, type Logger, type WireMessage } from "../../acp-wire/src/index.js";
import { OPEN_TAG } from "../../editor-context-proxy/src/index.js";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import type { CheckpointStore } from "../../checkpoints/src/index.js";
import { settingsFromEnvironment } from "../../checkpoints/src/settings.js";
import { defaultConfigPath } from "./config-path.js";
import type { InProcessComponent, Observation } from "./router.js";

type Methods = (typeof acp)["AGENT_METHODS"];
const SESSION_NEW = "session/new" satisfies Methods["session_new"];
const SESSION_LOAD = "session/load" satisfies Methods["session_load"];
const SESSION_RESUME = "session/resume" satisfies Methods["session_resume"];

export const CHECKPOINTS_COMPONENT = "checkpoints";

/** How long the chain's end waits for turns still open to be finished. */
const CLOSE_LIMIT_MS = 10_000;

export function checkpointsHook(env: NodeJS.ProcessEnv, log: Logger, debug: Logger): InProcessComponent | null {
  if (!env[STATE_FILE_ENV]) return null;
  const settings = settingsFromEnvironment(env, path.dirname(defaultConfigPath(env)), log);
  if (settings === null) return null;
  // Loaded and opened (it runs `git --version`) when a session first needs it, not while the agent starts.
  const store = lazyStore(() => import("../../checkpoints/src/index.js").then(({ CheckpointStore }) => CheckpointStore.create(settings)));
  const sessions = new Map<string, string[]>();
  return {
    name: CHECKPOINTS_COMPONENT,
    rewrites: new Set(),
    rewriteDownstream: () => null,
    observes: new Set([SESSION_NEW, SESSION_LOAD, SESSION_RESUME, SESSION_PROMPT]),
    observe: (message) => observe(message, sessions, store, log, debug),
    close: async () => {
      const opened = await store.ifOpened();
      if (opened !== null) await Promise.race([opened.close(), new Promise((resolve) => setTimeout(resolve, CLOSE_LIMIT_MS).unref())]);
    },
  };
}

/** The store, opened on the first call of `open`; `ifOpened` does not open it. */
interface LazyStore {
  open(): Promise<CheckpointStore | null>;
  ifOpened(): Promise<CheckpointStore | null>;
}

function lazyStore(create: () => Promise<CheckpointStore | null>): LazyStore {
  let opening: Promise<CheckpointStore | null> | null = null;
  return {
    open: () => (opening ??= create()),
    ifOpened: () => opening ?? Promise.resolve(null),
  };
}

function observe(message: WireMessage, sessions: Map<string, string[]>, store: LazyStore, log: Logger, debug: Logger): Observation | null {
  if (!isRequest(message) || !isObject(message.params)) return null;
  const params = message.params;
  if (message.method === SESSION_NEW) {
    const dirs = directoriesOf(params);
    if (dirs.length === 0) return null;
    return {
      answered: (answer) => {
        const result = answer();
        const sessionId = result !== null && "result" in result && isObject(result.result) ? result.result.sessionId : undefined;
        if (typeof sessionId !== "string") return;
        sessions.set(sessionId, dirs);
        prepare(store, dirs);
      },
    };
  }
  if (message.method !== SESSION_PROMPT) {
    // session/load and session/resume name the session and its directories up front.
    const dirs = directoriesOf(params);
    if (typeof params.sessionId === "string" && dirs.length > 0) {
      sessions.set(params.sessionId, dirs);
      prepare(store, dirs);
    }
    return null;
  }
  const sessionId = params.sessionId;
  const dirs = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
  if (dirs === undefined || typeof sessionId !== "string") {
    debug(`prompt not checkpointed: session ${JSON.stringify(sessionId)} was not opened through this conductor`);
    return null;
  }
  // Whatever goes wrong here, the prompt goes on unrecorded (said in the log): checkpoints never stop a conversation.
  const turn = store
    .open()
    .then((opened) => opened?.beginTurn({ sessionId, prompt: promptText(params.prompt), dirs }) ?? null)
    .catch((error: Error) => {
      log(`prompt not checkpointed: ${error.message}`);
      return null;
    });
  return {
    hold: turn.then((begun) => begun?.ready),
    answered: (answer) => {
      const outcome = answer();
      const note = outcome !== null && "error" in outcome ? `the prompt ended with an error: ${JSON.stringify(outcome.error).slice(0, 200)}` : undefined;
      void turn.then((begun) => begun?.finish(note));
    },
  };
}

/** A session's directories snapshotted while its user writes the first prompt, so that prompt waits only for a check. */
function prepare(store: LazyStore, dirs: string[]): void {
  void store
    .open()
    .then((opened) => opened?.prepare(dirs))
    .catch(() => {});
}

/** A session's `cwd` and its `additionalDirectories` (absolute paths only, as ACP requires). */
function directoriesOf(params: Record<string, unknown>): string[] {
  const extra = Array.isArray(params.additionalDirectories) ? (params.additionalDirectories as unknown[]) : [];
  return [params.cwd, ...extra].filter((dir): dir is string => typeof dir === "string" && path.isAbsolute(dir));
}

/** The prompt's own words: its text blocks without the editor-context block, whitespace folded. */
function promptText(prompt: unknown): string {
  if (!Array.isArray(prompt)) return "";
  const texts = (prompt as unknown[]).flatMap((block) =>
    isObject(block) && block.type === "text" && typeof block.text === "string" && !block.text.startsWith(OPEN_TAG) ? [block.text] : [],
  );
  return texts.join(" ").replace(/\s+/g, " ").trim();
}
