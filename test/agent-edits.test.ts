// An agent's write offered to VS Code (issue 23, item 4), without VS Code: the
// bridge's check of the `applyEdit` request (parseFromPanel), the chat server's
// bookkeeping of the pages' answers (WorkspaceEdits), which paths it offers at
// all (editorPath: inside the project, within the bridge's size cap), and a
// review left unanswered (mock timers): refused, never written to disk.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REVIEW_ANSWER_MS, UNANSWERED, answerWithin } from "../extension/src/review-deadline.js";
import type { SessionInfo, TranscriptEvent } from "../webchat/page/protocol.js";
import { AgentSession } from "../webchat/src/agent-session.js";
import { MAX_BRIDGE_TEXT, parseFromPanel } from "../webview/src/panel-messages.js";
import { ProjectFiles } from "../webchat/src/project-files.js";
import { EDIT_ANSWER_MS, editorPath, MAX_OFFERED_CHARS, WorkspaceEdits } from "../webchat/src/workspace-edits.js";
import { OUT_DIR, tempDir } from "./support/processes.js";

const EDIT_AGENT = path.join(OUT_DIR, "test", "fixtures", "edit-agent.js");

const request = (body: unknown) => parseFromPanel({ type: "request", request: body });

describe("the bridge's applyEdit request", () => {
  it("passes a well-formed one, rebuilt from its known fields", () => {
    assert.deepEqual(request({ kind: "applyEdit", id: "edit-1", path: "/w/a.txt", content: "x\n", extra: 1 }), {
      type: "request",
      request: { kind: "applyEdit", id: "edit-1", path: "/w/a.txt", content: "x\n" },
    });
  });

  it("drops one with a bad id, path or content", () => {
    for (const body of [
      { kind: "applyEdit", id: "", path: "/w/a", content: "" },
      { kind: "applyEdit", id: "a b", path: "/w/a", content: "" },
      { kind: "applyEdit", id: "x".repeat(65), path: "/w/a", content: "" },
      { kind: "applyEdit", id: "e", path: "", content: "" },
      { kind: "applyEdit", id: "e", path: "/w/a\0b", content: "" },
      { kind: "applyEdit", id: "e", path: "/w/a", content: 5 },
      { kind: "applyEdit", id: "e", path: "/w/a", content: "x".repeat(MAX_BRIDGE_TEXT + 1) },
      { kind: "applyEdit", id: "e", path: "/w/a" },
    ])
      assert.equal(request(body), null, JSON.stringify(body).slice(0, 80));
  });
});

describe("WorkspaceEdits (the chat server's side)", () => {
  const pageA = {};
  const pageB = {};

  it("answers notOpen at once when no page is attached", async () => {
    const edits = new WorkspaceEdits(() => []);
    assert.equal(await edits.offer("/w/a", "x"), "notOpen");
  });

  it("takes the first applied or rejected answer, and ignores unknown ids, values and pages", async () => {
    const sent: string[] = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message.id), [pageA, pageB]));
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, "edit-99", "applied");
    edits.answer(pageA, sent[0], "maybe");
    edits.answer({}, sent[0], "applied");
    edits.answer(pageA, sent[0], "notOpen");
    edits.answer(pageB, sent[0], "rejected");
    assert.equal(await result, "rejected");
  });

  it("answers notOpen when every page says so", async () => {
    const edits = new WorkspaceEdits(() => [pageA, pageB]);
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, "edit-1", "notOpen");
    edits.pageLeft(pageA); // already answered: does not count twice
    edits.answer(pageB, "edit-1", "notOpen");
    assert.equal(await result, "notOpen");
  });

  it("refuses (pageLeft, never a disk write) when a page leaves before it answered: it may have been showing a review", async () => {
    const edits = new WorkspaceEdits(() => [pageA, pageB]);
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, "edit-1", "notOpen");
    edits.pageLeft(pageB);
    assert.equal(await result, "pageLeft");
  });

  it("answers unanswered, never notOpen (a disk write), when no page answers in time; a late answer changes nothing", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const edits = new WorkspaceEdits(() => [pageA]);
    let result: string | undefined;
    void edits.offer("/w/a", "x").then((value) => (result = value));
    t.mock.timers.tick(EDIT_ANSWER_MS - 1);
    await settled();
    assert.equal(result, undefined, "still waiting for the user");
    t.mock.timers.tick(1);
    await settled();
    assert.equal(result, "unanswered");
    edits.answer(pageA, "edit-1", "applied");
    await settled();
    assert.equal(result, "unanswered");
  });

  it("takes a page's own unanswered (the extension's review timed out) as the answer", async () => {
    const edits = new WorkspaceEdits(() => [pageA, pageB]);
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, "edit-1", "unanswered");
    assert.equal(await result, "unanswered");
  });
});

describe("a review left open (extension/src/review-deadline.ts)", () => {
  it("gives the user 10 minutes, then answers UNANSWERED; a click after that is dropped", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    let click: (answer: string) => void = () => {};
    let answer: string | symbol | undefined;
    void answerWithin(new Promise<string>((resolve) => (click = resolve))).then((value) => (answer = value));
    t.mock.timers.tick(REVIEW_ANSWER_MS - 1);
    await settled();
    assert.equal(answer, undefined);
    t.mock.timers.tick(1);
    await settled();
    assert.equal(answer, UNANSWERED);
    click("Accept");
    await settled();
    assert.equal(answer, UNANSWERED);
  });

  it("passes the user's answer given in time", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const answer = answerWithin(Promise.resolve("Reject"));
    await settled();
    t.mock.timers.tick(REVIEW_ANSWER_MS);
    assert.equal(await answer, "Reject");
  });

  it("times out before the chat server does, so the agent hears the extension's unanswered", () => {
    assert.ok(REVIEW_ANSWER_MS + 30_000 <= EDIT_ANSWER_MS, `${REVIEW_ANSWER_MS} ms, then ${EDIT_ANSWER_MS} ms`);
  });
});

describe("an agent's write while the review stays open (the chat server, a real agent)", () => {
  it("is refused once the time is up: the agent gets 'did not answer', the file on disk is untouched", async (t) => {
    const page = {};
    const said = await writeWhileReviewOpen(() => {
      t.mock.timers.enable({ apis: ["setTimeout"] });
      // The time runs out; real timers again before the session stops (its stop waits on them).
      return () => (t.mock.timers.tick(EDIT_ANSWER_MS), t.mock.timers.reset());
    }, page);
    assert.match(said.text, /^write failed: .*the user did not answer the review of the edit to .*notes\.txt in time; nothing was written/);
    assert.equal(said.onDisk, "the user's text\n");
  });

  it("is refused when the chat in VS Code closes first: the agent is told, the file on disk is untouched", async () => {
    const page = {};
    const said = await writeWhileReviewOpen((edits) => () => edits.pageLeft(page), page);
    assert.match(said.text, /^write failed: .*the chat in VS Code closed before it answered for the edit to .*notes\.txt; nothing was written/);
    assert.equal(said.onDisk, "the user's text\n");
  });
});

/**
 * A real agent writes notes.txt through a chat session whose one page in VS
 * Code is asked and does not answer; `arrange` runs before the prompt and
 * returns what ends the wait once the edit is offered. What the agent said
 * (its one message) and what the file holds after.
 */
async function writeWhileReviewOpen(arrange: (edits: WorkspaceEdits) => () => void, page: object): Promise<{ text: string; onDisk: string }> {
  const project = fs.realpathSync(tempDir("symposium-edits-"));
  const notes = path.join(project, "notes.txt");
  fs.writeFileSync(notes, "the user's text\n");
  let offered: () => void = () => {};
  const offeredOnce = new Promise<void>((resolve) => (offered = resolve));
  const edits = new WorkspaceEdits(() => (offered(), [page]));
  const events: TranscriptEvent[] = [];
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const session = new AgentSession({
    command: `"${process.execPath}" "${EDIT_AGENT}"`,
    projectDir: project,
    env: process.env,
    files: await ProjectFiles.open(project),
    log: () => {},
    onEvent: (event) => events.push(event),
    onSession: (info: SessionInfo) => info.state === "ready" && ready(),
    offerEdit: (file, content) => edits.offer(file, content),
  });
  try {
    await isReady;
    const endWait = arrange(edits);
    const turn = session.prompt("write notes.txt the agent's text", true);
    await offeredOnce;
    endWait();
    await turn;
    const said = events.flatMap((event) =>
      event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk" ? [(event.update.content as { text?: string }).text ?? ""] : [],
    );
    assert.equal(said.length, 1, JSON.stringify(events));
    return { text: said[0]!, onDisk: fs.readFileSync(notes, "utf8") };
  } finally {
    await session.stop();
  }
}

/** Lets promise callbacks run (mock timers leave the microtask queue alone). */
async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe("editorPath (what the chat server offers VS Code)", () => {
  it("offers a path whose folder is inside the project (real path), nothing outside it or too large", async () => {
    const project = fs.realpathSync(tempDir("symposium-edits-"));
    fs.mkdirSync(path.join(project, "src"));
    const files = await ProjectFiles.open(project);
    assert.equal(editorPath(files, project, path.join(project, "src", "a.rs"), "x"), path.join(project, "src", "a.rs"));
    assert.equal(editorPath(files, project, "src/a.rs", "x"), path.join(project, "src", "a.rs"));
    assert.equal(editorPath(files, project, path.join(project, "..", "a.rs"), "x"), undefined);
    assert.equal(editorPath(files, project, path.join(project, "new", "a.rs"), "x"), undefined);
    assert.equal(editorPath(files, project, path.join(project, "a.rs"), "x".repeat(MAX_OFFERED_CHARS + 1)), undefined);
  });
});
