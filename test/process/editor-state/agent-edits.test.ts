// An agent's write offered to VS Code, without VS Code: the
// bridge's check of the `applyEdit` request (parseFromPanel), the chat server's
// bookkeeping of the pages' answers (WorkspaceEdits), which paths it offers at
// all (editorPath: inside the project), and a review left unanswered (mock
// timers): refused, never written to disk. The ids are random and
// only a write this server offered is answered (item 3); a write over the
// bridge's cap is offered without its content and, refused by VS Code, never
// written to disk (item 4); VS Code's own failure is never a disk write (item
// 13); the agent's change carried over the user's typing (edit-rebase.ts).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REVIEW_ANSWER_MS, UNANSWERED, answerWithin } from "../../../extension/src/turns/review-deadline.js";
import type { SessionInfo, TranscriptEvent } from "../../../webchat/page/protocol.js";
import { AgentSession } from "../../../webchat/src/agent-session.js";
import { MAX_BRIDGE_TEXT, parseFromPanel } from "../../../webview/src/panel-messages.js";
import { ProjectFiles } from "../../../webchat/src/project-files.js";
import { EDIT_ANSWER_MS, editorPath, MAX_OFFERED_CHARS, refusal, WorkspaceEdits } from "../../../webchat/src/workspace-edits.js";
import { changeBetween, rebaseChange } from "../../../extension/src/turns/edit-rebase.js";
import { OUT_DIR, tempDir } from "../../support/processes.js";

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
    const sent: string[] = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message.id), [pageA, pageB]));
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, sent[0], "notOpen");
    edits.pageLeft(pageA); // already answered: does not count twice
    edits.answer(pageB, sent[0], "notOpen");
    assert.equal(await result, "notOpen");
  });

  it("refuses (pageLeft, never a disk write) when a page leaves before it answered: it may have been showing a review", async () => {
    const sent: string[] = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message.id), [pageA, pageB]));
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, sent[0], "notOpen");
    edits.pageLeft(pageB);
    assert.equal(await result, "pageLeft");
  });

  it("answers unanswered, never notOpen (a disk write), when no page answers in time; a late answer changes nothing", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const sent: string[] = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message.id), [pageA]));
    let result: string | undefined;
    void edits.offer("/w/a", "x").then((value) => (result = value));
    t.mock.timers.tick(EDIT_ANSWER_MS - 1);
    await settled();
    assert.equal(result, undefined, "still waiting for the user");
    t.mock.timers.tick(1);
    await settled();
    assert.equal(result, "unanswered");
    edits.answer(pageA, sent[0], "applied");
    await settled();
    assert.equal(result, "unanswered");
  });

  it("takes a page's own unanswered (the extension's review timed out) as the answer", async () => {
    const sent: string[] = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message.id), [pageA, pageB]));
    const result = edits.offer("/w/a", "x");
    edits.answer(pageA, sent[0], "unanswered");
    assert.equal(await result, "unanswered");
  });

  it("names each write by a random id a forger cannot guess: answers for other ids count for nothing", async () => {
    const sent: string[] = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message.id), [pageA]));
    const first = edits.offer("/w/a", "x");
    const second = edits.offer("/w/b", "y");
    assert.notEqual(sent[0], sent[1]);
    for (const id of sent) assert.match(id, /^edit-[A-Za-z0-9_-]{24}$/, "144 random bits, and within the bridge's id check");
    for (let n = 0; n < 50; n++) edits.answer(pageA, `edit-${n}`, "notOpen"); // the old sequential ids
    edits.answer(pageA, sent[1], "rejected");
    assert.equal(await second, "rejected");
    edits.answer(pageA, sent[0], "applied");
    assert.equal(await first, "applied");
  });

  it("offers a write over the bridge's cap without its content (tooLarge); VS Code's refusal is no disk write", async () => {
    const sent: Array<{ content: string; tooLarge?: boolean; id: string }> = [];
    const edits = new WorkspaceEdits((message) => (sent.push(message), [pageA]));
    const big = "x".repeat(MAX_OFFERED_CHARS + 1);
    const result = edits.offer("/w/a", big);
    assert.equal(sent[0]!.tooLarge, true);
    assert.equal(sent[0]!.content, "", "the content is not sent: the bridge could not carry it");
    edits.answer(pageA, sent[0]!.id, "failed");
    assert.equal(await result, "failed");
    assert.match(refusal("failed", "a.txt", big.length)!, /too large to review in VS Code.*nothing was written/);
    const small = edits.offer("/w/a", "small");
    assert.equal(sent[1]!.tooLarge, undefined);
    assert.equal(sent[1]!.content, "small");
    edits.answer(pageA, sent[1]!.id, "notOpen");
    assert.equal(await small, "notOpen");
  });

  it("says why for each refusal, and nothing for applied or notOpen (the server's own write)", () => {
    assert.equal(refusal("applied", "a", 1), undefined);
    assert.equal(refusal("notOpen", "a", 1), undefined);
    assert.match(refusal("failed", "a", 1)!, /^VS Code could not apply the edit to a; nothing was written$/);
    assert.match(refusal("changed", "a", 1)!, /changed the same part of a .*nothing was written/);
  });
});

describe("the agent's change carried over the user's typing (extension/src/turns/edit-rebase.ts)", () => {
  const original = "one\ntwo\nthree\nfour\n";
  const agent = changeBetween(original, "one\nTWO\nthree\nfour\n");
  const apply = (text: string, change: { start: number; end: number; text: string }) => text.slice(0, change.start) + change.text + text.slice(change.end);

  it("is the one region that differs", () => {
    assert.deepEqual(agent, { start: 4, end: 7, text: "TWO" });
    assert.deepEqual(changeBetween("abc", "abc"), { start: 3, end: 3, text: "" });
    assert.equal(apply("x😀y", changeBetween("x😀y", "x😁y")), "x😁y");
    assert.deepEqual(changeBetween("x😀y", "x😁y"), { start: 1, end: 3, text: "😁" }, "never half a surrogate pair");
    assert.deepEqual(changeBetween("a\r\nb", "a\nb"), { start: 1, end: 3, text: "\n" }, "never half a CRLF");
  });

  it("keeps what the user typed elsewhere, before or after the agent's lines", () => {
    const typedBefore = "one!!\ntwo\nthree\nfour\n";
    assert.equal(apply(typedBefore, rebaseChange(original, typedBefore, agent)!), "one!!\nTWO\nthree\nfour\n");
    const typedAfter = "one\ntwo\nthree\nfour\nfive\n";
    assert.equal(apply(typedAfter, rebaseChange(original, typedAfter, agent)!), "one\nTWO\nthree\nfour\nfive\n");
    assert.deepEqual(rebaseChange(original, original, agent), agent);
  });

  it("refuses when the user changed the same lines (or right against them)", () => {
    assert.equal(rebaseChange(original, "one\ntwo2\nthree\nfour\n", agent), undefined);
    assert.equal(rebaseChange(original, "one\n\nthree\nfour\n", agent), undefined);
  });
});

describe("a review left open (extension/src/turns/review-deadline.ts)", () => {
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
    assert.match(said.text, /^write failed: .*the user did not answer the review of the edit to .*notes\.txt within 10 minutes; nothing was written/);
    assert.equal(said.onDisk, "the user's text\n");
  });

  it("is refused when the chat in VS Code closes first: the agent is told, the file on disk is untouched", async () => {
    const page = {};
    const said = await writeWhileReviewOpen((edits) => () => edits.pageLeft(page), page);
    assert.match(said.text, /^write failed: .*the chat in VS Code closed before it answered for the edit to .*notes\.txt; nothing was written/);
    assert.equal(said.onDisk, "the user's text\n");
  });

  it("is refused, not written to disk, when it is too large for the bridge and VS Code (where the file is open) refuses it", async () => {
    const page = {};
    const big = "y".repeat(MAX_OFFERED_CHARS + 10);
    const said = await writeWhileReviewOpen(
      (edits, offered) => () => {
        assert.equal(offered()?.tooLarge, true);
        edits.answer(page, offered()?.id, "failed");
      },
      page,
      `write notes.txt ${big}`,
    );
    assert.match(said.text, /^write failed: .*the edit to .*notes\.txt is too large to review in VS Code.*nothing was written/);
    assert.equal(said.onDisk, "the user's text\n");
  });

  it("is not written to disk when VS Code fails to apply it (fail closed)", async () => {
    const page = {};
    const said = await writeWhileReviewOpen((edits, offered) => () => edits.answer(page, offered()?.id, "failed"), page);
    assert.match(said.text, /^write failed: .*VS Code could not apply the edit to .*notes\.txt; nothing was written/);
    assert.equal(said.onDisk, "the user's text\n");
  });
});

/**
 * A real agent writes notes.txt through a chat session whose one page in VS
 * Code is asked and does not answer; `arrange` runs before the prompt and
 * returns what ends the wait once the edit is offered. What the agent said
 * (its one message) and what the file holds after.
 */
async function writeWhileReviewOpen(
  arrange: (edits: WorkspaceEdits, offered: () => { id: string; tooLarge?: boolean } | undefined) => () => void,
  page: object,
  prompt = "write notes.txt the agent's text",
): Promise<{ text: string; onDisk: string }> {
  const project = fs.realpathSync(tempDir("symposium-edits-"));
  const notes = path.join(project, "notes.txt");
  fs.writeFileSync(notes, "the user's text\n");
  let offered: () => void = () => {};
  const offeredOnce = new Promise<void>((resolve) => (offered = resolve));
  let offer: { id: string; tooLarge?: boolean } | undefined;
  const edits = new WorkspaceEdits((message) => ((offer = message), offered(), [page]));
  const events: TranscriptEvent[] = [];
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const session = new AgentSession({
    command: { kind: "program", program: process.execPath, args: [EDIT_AGENT], env: {} },
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
    const endWait = arrange(edits, () => offer);
    const turn = session.prompt(prompt, true);
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
  it("offers a path whose folder is inside the project (real path), nothing outside it; a large write too (as tooLarge)", async () => {
    const project = fs.realpathSync(tempDir("symposium-edits-"));
    fs.mkdirSync(path.join(project, "src"));
    const files = await ProjectFiles.open(project);
    assert.equal(editorPath(files, project, path.join(project, "src", "a.rs"), "x"), path.join(project, "src", "a.rs"));
    assert.equal(editorPath(files, project, "src/a.rs", "x"), path.join(project, "src", "a.rs"));
    assert.equal(editorPath(files, project, path.join(project, "..", "a.rs"), "x"), undefined);
    assert.equal(editorPath(files, project, path.join(project, "new", "a.rs"), "x"), undefined);
    assert.equal(editorPath(files, project, path.join(project, "a.rs"), "x".repeat(MAX_OFFERED_CHARS + 1)), path.join(project, "a.rs"));
  });
});
