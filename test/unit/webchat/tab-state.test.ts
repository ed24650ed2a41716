// The chat tab's state (webchat/page/tab-state.ts) outside the browser: server
// messages and user actions through the reducer, checked by the state it returns
// and the effects it asks of the view. The two races the Chromium tests found
// under CI load are here: a message sent before the server took the previous one
// (it queues, and goes once the turn has ended), and a tab shown before its
// replay (the replay marks the transcript whole, never a session before it).

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import type { ServerMessage, SessionInfo, TranscriptEvent } from "../../../webchat/page/protocol.js";
import {
  MAX_QUEUED,
  initialTabState,
  notSendable,
  reduce,
  tabLabel,
  type TabEffect,
  type TabInput,
  type TabStart,
  type TabState,
} from "../../../webchat/page/tab-state.js";

const ready: SessionInfo = { state: "ready", modes: [], commands: [], agentName: "Demo" };
const prompting: SessionInfo = { ...ready, state: "prompting" };

/** Runs `inputs` in order from `state`; the last state and every effect, in order. */
function run(state: TabState, ...inputs: TabInput[]): { state: TabState; effects: TabEffect[] } {
  const effects: TabEffect[] = [];
  for (const input of inputs) {
    const next = reduce(state, input);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

/** A tab whose socket is open, its replay in and its agent ready. */
function readyTab(start: TabStart = { conversation: "c1" }): TabState {
  return run(initialTabState(start), { type: "socketOpen" }, { type: "session", session: ready }, { type: "replay", events: [] }).state;
}

const sentPrompts = (effects: TabEffect[]): string[] =>
  effects.flatMap((effect) => (effect.kind === "send" && effect.message.type === "prompt" ? [effect.message.text] : []));
const sent = (effects: TabEffect[]): string[] => effects.flatMap((effect) => (effect.kind === "send" ? [effect.message.type] : []));
const refusals = (effects: TabEffect[]): string[] => effects.flatMap((effect) => (effect.kind === "refused" ? [effect.reason] : []));
const event = (event: TranscriptEvent): ServerMessage => ({ type: "event", event });
const submit = (text: string): TabInput => ({ type: "submit", text, images: [] });

describe("chat tab state: a prompt in flight", () => {
  it("queues a message sent before the server took the previous one, and sends it once that turn ends", () => {
    const first = run(readyTab(), submit("first"));
    assert.deepEqual(sentPrompts(first.effects), ["first"]);
    assert.equal(first.state.promptInFlight, "first");
    // The server has not answered yet (its copy and "prompting" are a round trip away): the second waits.
    const second = run(first.state, submit("second"));
    assert.deepEqual(sentPrompts(second.effects), [], "a second prompt must not reach a server that is still taking the first");
    assert.deepEqual(refusals(second.effects), []);
    assert.deepEqual(second.state.queue.items, ["second"]);
    const taken = run(second.state, event({ kind: "user", text: "first", contextSkipped: false }), { type: "session", session: prompting });
    assert.equal(taken.state.promptInFlight, undefined);
    assert.deepEqual(sentPrompts(taken.effects), []);
    const ended = run(taken.state, event({ kind: "turnEnd", stopReason: "end_turn" }), { type: "session", session: ready });
    assert.deepEqual(sentPrompts(ended.effects), ["second"]);
    assert.deepEqual(ended.state.queue.items, []);
    assert.equal(ended.state.promptInFlight, "second");
  });

  it("does not send the queue while a prompt is in flight, even when the session says ready", () => {
    const queued = run(readyTab(), submit("first"), submit("second"), event({ kind: "turnEnd", stopReason: "end_turn" }));
    const stillReady = run(queued.state, { type: "session", session: ready });
    assert.deepEqual(sentPrompts(stillReady.effects), []);
    assert.deepEqual(stillReady.state.queue.items, ["second"]);
  });

  it("takes back a prompt the server refused into the queue, sent once the agent is ready", () => {
    const refused = run(readyTab(), submit("first"), event({ kind: "notice", message: "busy", promptRefused: true }));
    assert.equal(refused.state.promptInFlight, undefined);
    assert.deepEqual(refused.state.queue.items, ["first"]);
    assert.deepEqual(sentPrompts(run(refused.state, { type: "session", session: ready }).effects), ["first"]);
  });

  it("settles on an error, and not on another surface's message", () => {
    const other = run(readyTab(), submit("mine"), event({ kind: "user", text: "theirs", contextSkipped: false }));
    assert.equal(other.state.promptInFlight, "mine");
    assert.equal(run(other.state, event({ kind: "error", message: "failed" })).state.promptInFlight, undefined);
  });

  it("forgets the prompt in flight on a replay (a reconnect shows whether the server took it) and when the session ends", () => {
    const inFlight = run(readyTab(), submit("first")).state;
    assert.equal(run(inFlight, { type: "replay", events: [] }).state.promptInFlight, undefined);
    assert.equal(run(inFlight, { type: "session", session: { ...ready, state: "ended" } }).state.promptInFlight, undefined);
  });
});

describe("chat tab state: the replay", () => {
  it("marks a tab whole only once its replay is in, whatever came before it", () => {
    // The hello and the session come before the replay: a tab shown then has no transcript yet.
    const before = run(
      initialTabState({ conversation: "c1", newAgent: "Demo", notice: "Forked from x." }),
      { type: "socketOpen" },
      { type: "hello", conversationId: "c1", named: true, title: "t", projectDir: "/p" },
      { type: "session", session: ready },
    );
    assert.equal(before.state.replayed, false);
    assert.ok(!before.effects.some((effect) => effect.kind === "replayed"));
    assert.ok(!before.effects.some((effect) => effect.kind === "show"), "no notice before the transcript is drawn");
    const after = run(before.state, { type: "replay", events: [{ kind: "user", text: "hello there\nsecond line", contextSkipped: false }] });
    assert.equal(after.state.replayed, true);
    const kinds = after.effects.map((effect) => effect.kind);
    assert.deepEqual(kinds, ["clearTranscript", "show", "show", "show", "replayed", "changed"]);
    const notices = after.effects.flatMap((effect) => (effect.kind === "show" && effect.event.kind === "notice" ? [effect.event.message] : []));
    assert.deepEqual(notices, ["New conversation with Demo", "Forked from x."]);
    assert.equal(tabLabel(after.state, false), "hello there");
    assert.equal(tabLabel(after.state, true), "hello there (fork)");
  });

  it("says the new agent only once it has started, never under its failure to start", () => {
    const starting = run(initialTabState({ newAgent: "Demo" }), { type: "replay", events: [] });
    assert.equal(starting.state.newAgentNotice, "Demo");
    const failed = run(starting.state, {
      type: "session",
      session: { state: "ended", modes: [], commands: [], ended: { message: "did not start", startFailed: true, stderrTail: [] } },
    });
    assert.ok(!failed.effects.some((effect) => effect.kind === "show"));
    assert.ok(failed.effects.some((effect) => effect.kind === "banner" && effect.banner.kind === "startFailed"));
  });
});

describe("chat tab state: open questions and edits", () => {
  it("marks the tab waiting while a permission or question is unanswered", () => {
    const asked = run(
      readyTab(),
      { type: "session", session: prompting },
      event({ kind: "permission", id: "p1", title: "Write?", options: [] }),
      event({ kind: "elicitation", id: "e1", message: "Which?", mode: "form", fields: [] }),
    );
    assert.deepEqual(asked.state.open, ["p1", "e1"]);
    assert.deepEqual(run(asked.state, event({ kind: "permissionDone", id: "p1", outcome: "selected" })).state.open, ["e1"]);
    assert.deepEqual(run(asked.state, event({ kind: "turnEnd", stopReason: "cancelled" })).state.open, []);
    assert.deepEqual(run(asked.state, { type: "session", session: ready }).state.open, []);
  });

  it("withdraws the edits handed to VS Code when the socket goes, and answers those VS Code answered", () => {
    const edit = (id: string): ServerMessage => ({ type: "applyEdit", id, path: "a.txt", content: "x" });
    const handed = run(readyTab(), edit("w1"), edit("w2"), { type: "editDone", id: "w1", result: "applied" });
    assert.deepEqual(handed.state.edits, ["w2"]);
    assert.ok(handed.effects.some((effect) => effect.kind === "send" && effect.message.type === "editResult" && effect.message.id === "w1"));
    const closed = run(handed.state, { type: "socketClosed" });
    assert.deepEqual(closed.state.edits, []);
    assert.deepEqual(
      closed.effects.filter((effect) => effect.kind === "withdrawEdits"),
      [{ kind: "withdrawEdits", ids: ["w2"] }],
    );
  });
});

describe("chat tab state: the connection", () => {
  it("refuses a prompt before the socket is open and after it closed, saying why", () => {
    const closed = run(initialTabState({}), { type: "session", session: ready });
    assert.match(refusals(run(closed.state, submit("x")).effects)[0] ?? "", /not connected/);
    const lost = run(readyTab(), { type: "socketClosed" });
    assert.match(notSendable(lost.state) ?? "", /not connected/);
    assert.ok(lost.effects.some((effect) => effect.kind === "banner" && effect.banner.kind === "reconnect"));
  });

  it("shows no lost-connection banner when the tab leaves its conversation", () => {
    const left = run(readyTab(), { type: "newChat" });
    assert.deepEqual(sent(left.effects), ["end"]);
    assert.ok(left.effects.some((effect) => effect.kind === "replace" && effect.next.named));
    const closed = run(left.state, { type: "socketClosed" });
    assert.ok(!closed.effects.some((effect) => effect.kind === "banner"));
  });
});

describe("chat tab state: the queue", () => {
  it("holds the queue on Stop and on a failed turn; Send queued lets it go", () => {
    const queued = run(readyTab(), { type: "session", session: prompting }, submit("a"), submit("b"));
    assert.deepEqual(queued.state.queue.items, ["a", "b"]);
    const stopped = run(queued.state, { type: "cancel" }, event({ kind: "turnEnd", stopReason: "cancelled" }), { type: "session", session: ready });
    assert.equal(stopped.state.queue.held, true);
    assert.deepEqual(sent(stopped.effects), ["cancel"]);
    const resumed = run(stopped.state, { type: "queueEdit", index: 0, text: "a, edited" }, { type: "queueResume" });
    assert.deepEqual(sentPrompts(resumed.effects), ["a, edited"]);
    assert.deepEqual(resumed.state.queue.items, ["b"]);
    const failed = run(queued.state, event({ kind: "error", message: "boom" }));
    assert.equal(failed.state.queue.held, true);
    assert.match(failed.state.queue.heldBecause, /failed/);
  });

  it("refuses images while the agent answers, and a message over the queue's limit", () => {
    const busy = run(readyTab(), { type: "session", session: prompting }).state;
    const image = run(busy, { type: "submit", text: "see", images: [{ mimeType: "image/png", data: "AAAA" }] });
    assert.match(refusals(image.effects)[0] ?? "", /images go with a message sent once the agent is ready/);
    const full = run(busy, ...Array.from({ length: MAX_QUEUED }, (_, index) => submit(`m${index}`)));
    assert.equal(full.state.queue.items.length, MAX_QUEUED);
    assert.match(refusals(run(full.state, submit("one more")).effects)[0] ?? "", /queue is full/);
  });

  it("sends the first-run menu's question once the agent is ready", () => {
    const start = initialTabState({ send: "what now?" });
    assert.deepEqual(start.queue.items, ["what now?"]);
    const readyNow = run(start, { type: "socketOpen" }, { type: "session", session: ready });
    assert.deepEqual(sentPrompts(readyNow.effects), ["what now?"]);
  });

  it("drops a queued message emptied by the user instead of sending it", () => {
    const queued = run(readyTab(), { type: "session", session: prompting }, submit("a"), submit("b"), { type: "queueEdit", index: 0, text: "  " });
    const ended = run(queued.state, event({ kind: "turnEnd", stopReason: "end_turn" }), { type: "session", session: ready });
    assert.deepEqual(sentPrompts(ended.effects), ["b"]);
  });
});

describe("chat tab state: context, fork and purity", () => {
  it("skips the editor context for one prompt only", () => {
    const chip = { label: "a.ts:1", block: "```\nx\n```" };
    const skipped = run(readyTab(), { type: "context", chip }, { type: "attachContext", checked: false }, submit("x"));
    const prompt = skipped.effects.find((effect) => effect.kind === "send" && effect.message.type === "prompt");
    assert.deepEqual(prompt, { kind: "send", message: { type: "prompt", text: "x", skipContext: true } });
    assert.equal(skipped.state.attachContext, true);
  });

  it("asks for one fork at a time and opens it beside, with the message to edit", () => {
    const asked = run(readyTab(), { type: "fork", text: "edit me" }, { type: "fork" });
    assert.deepEqual(sent(asked.effects), ["fork"]);
    const forked = run(asked.state, { type: "forked", agentSessionId: "s2", historyId: "h2" });
    assert.equal(forked.state.forking, undefined);
    const beside = forked.effects.find((effect) => effect.kind === "openBeside");
    assert.equal(beside?.kind === "openBeside" && beside.next.draft, "edit me");
    assert.equal(beside?.kind === "openBeside" && beside.next.reopen, "h2");
    const busy = run(readyTab(), { type: "session", session: prompting }, { type: "fork" });
    assert.deepEqual(sent(busy.effects), []);
    assert.ok(busy.effects.some((effect) => effect.kind === "composerNotice"));
  });

  it("never changes the state it is given", () => {
    const state = readyTab();
    const copy = structuredClone(state);
    run(state, submit("a"), submit("b"), event({ kind: "permission", id: "p", title: "t", options: [] }), { type: "socketClosed" });
    assert.deepEqual(state, copy);
  });
});
