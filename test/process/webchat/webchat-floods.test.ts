// symposium-webchat under floods, with the real
// server, a real flooding ACP agent (test/fixtures/flood-agent.ts) and a real
// websocket client: a page that stops reading holds the agent back instead of
// growing the server; with no page attached the transcript stays bounded and
// its replay leaves in pieces; the number of live conversations is capped.
// Terminals printing to a page that stops reading cost
// only each terminal's latest view; a conversation's terminals keep at most
// their budget. The server's memory is read from the outside (/proc, else ps).

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { quote } from "shell-quote";
import { WebSocket } from "ws";
import type { ServerMessage, TranscriptEvent } from "../../../webchat/page/protocol.js";
import { planLaunch } from "../../../extension/src/panel/panel-launch.js";
import { parseArgs } from "../../../webchat/src/args.js";
import { CONDUCTOR_CLI, OUT_DIR, eventually, isAlive, tempDir } from "../../support/processes.js";
import { startChatServer, type ChatServer } from "../../support/webchat-server.js";
import { watchMemory } from "../../support/memory.js";
import { frameText } from "../../../acp-wire/src/index.js";

const FLOOD_AGENT = path.join(OUT_DIR, "test", "fixtures", "flood-agent.js");
const FLOOD_COMMAND = quote([process.execPath, FLOOD_AGENT]);
/** The server stays under this in both floods. */
const RSS_LIMIT_MB = 200;
/** Past this the old build is plainly failing: stop it before it takes the machine's memory. */
const RSS_ABORT_MB = 450;
const MB = 1024 * 1024;
/** 32 printing terminals once took the server from 104 to 458 MB in 20 s. */
const PRINTING_TERMINALS = 32;

/** A page's websocket: keeps the frames it receives (as text) and the messages in them. */
class Page {
  readonly frames: string[] = [];
  readonly messages: ServerMessage[] = [];
  readonly socket: WebSocket;
  readonly opened: Promise<void>;
  closeCode: number | undefined;

  constructor(
    server: ChatServer,
    conversation?: string,
    private readonly keepFrames = false,
  ) {
    const url = new URL(`ws://${server.url.host}/ws`);
    url.searchParams.set("token", server.token);
    if (conversation) url.searchParams.set("conversation", conversation);
    this.socket = new WebSocket(url, { headers: { origin: server.origin } });
    this.socket.on("message", (data) => {
      const text = frameText(data);
      if (this.keepFrames) this.frames.push(text);
      const message = JSON.parse(text) as ServerMessage;
      for (const each of message.type === "batch" ? message.messages : [message]) {
        // A terminal's view is its last 64 KiB: the end is what the tests read, and all of it would fill this process.
        if (each.type === "event" && each.event.kind === "terminal") each.event.output = each.event.output.slice(-64);
        this.messages.push(each);
      }
    });
    this.socket.on("close", (code) => (this.closeCode = code));
    this.opened = new Promise((resolve, reject) => {
      this.socket.once("open", () => resolve());
      this.socket.once("error", reject);
    });
  }

  events(): TranscriptEvent[] {
    return this.messages.flatMap((message) => (message.type === "event" ? [message.event] : message.type === "replay" ? message.events : []));
  }

  async ready(): Promise<void> {
    await this.opened;
    await eventually(() => this.messages.some((message) => message.type === "session" && message.session.state === "ready"), 10_000, "the session to be ready");
  }

  prompt(text: string): void {
    this.socket.send(JSON.stringify({ type: "prompt", text, skipContext: true }));
  }

  /** Stops reading: the socket's data stays in the kernel's buffers, then in the server's. */
  stopReading(): void {
    (this.socket as unknown as { _socket: import("node:net").Socket })._socket.pause();
  }

  resumeReading(): void {
    (this.socket as unknown as { _socket: import("node:net").Socket })._socket.resume();
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.socket.close();
    return new Promise((resolve) => this.socket.once("close", () => resolve()));
  }
}

/** Samples the server's memory every 50 ms; a server past RSS_ABORT_MB is stopped (the test has failed). */
function watchServer(server: ChatServer): { peakMb(): number; stop(): void } {
  return watchMemory(server.process.child, RSS_ABORT_MB);
}

function progressOf(file: string): number {
  try {
    return Number(fs.readFileSync(file, "utf8")) || 0;
  } catch {
    return 0;
  }
}

function agentText(events: TranscriptEvent[]): string {
  return events
    .map((event) => (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk" ? (event.update.content as { text: string }).text : ""))
    .join("");
}

describe("chat server under floods", () => {
  const servers: ChatServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  /** `agent`: the flood agent's command line for the shell, or a program and its arguments (our conductor). */
  async function floodServer(extraArgs: string[] = [], agent: string | string[] = FLOOD_COMMAND): Promise<{ server: ChatServer; progress: string }> {
    const progress = path.join(tempDir("flood-progress-"), "sent");
    const how = typeof agent === "string" ? { command: agent } : { agent };
    const server = await startChatServer({ ...how, env: { FLOOD_PROGRESS: progress }, extraArgs });
    servers.push(server);
    return { server, progress };
  }

  /** Our conductor's `run` in front of the flood agent: the chat runs it in its own process. */
  function conductorInProcess(): string[] {
    const config = path.join(tempDir("flood-config-"), "config.jsonc");
    fs.writeFileSync(config, JSON.stringify({ agent: FLOOD_COMMAND }));
    return [process.execPath, CONDUCTOR_CLI, "run", "--config", config];
  }

  for (const [through, command] of [
    ["", () => FLOOD_COMMAND],
    [", through our conductor running in the server's process", conductorInProcess],
  ] as const)
    it(`a page that does not read holds the agent back${through}: the server stays small, and the flood goes on once the page reads`, async () => {
      const { server, progress } = await floodServer([], command());
      const memory = watchServer(server);
      const page = new Page(server);
      await page.ready();
      page.stopReading();
      page.prompt("flood 400");
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const stalledAt = progressOf(progress);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const later = progressOf(progress);
      memory.stop();
      assert.equal(server.process.child.exitCode, null, `the server ended:\n${server.process.stderr()}`);
      assert.ok(memory.peakMb() < RSS_LIMIT_MB, `the server grew to ${memory.peakMb().toFixed(0)} MB while its page did not read`);
      assert.ok(later < 100 * MB, `the agent wrote ${(later / MB).toFixed(0)} MB to a page that did not read`);
      assert.ok(later - stalledAt < 2 * MB, `the agent went on writing (${((later - stalledAt) / MB).toFixed(1)} MB in 2 s) while the page did not read`);
      console.log(`# slow page: server peak RSS ${memory.peakMb().toFixed(0)} MB; the agent stopped after ${(later / MB).toFixed(1)} MB of 400`);

      page.resumeReading();
      await eventually(() => progressOf(progress) > later + 20 * MB, 30_000, "the flood to go on once the page reads");
      const [agentPid] = server.agentPids();
      await page.close();
      await eventually(() => !isAlive(agentPid!), 5_000, "the agent to end with its page");
    });

  it("with no page attached, keeps a bounded transcript and replays it in pieces, newest output kept, oldest marked as trimmed", async () => {
    const { server, progress } = await floodServer();
    const memory = watchServer(server);
    const first = new Page(server, "flood-named");
    await first.ready();
    first.prompt("flood 300");
    await eventually(() => progressOf(progress) > 0, 10_000, "the flood to start");
    await first.close();
    const started = Date.now();
    await eventually(() => progressOf(progress) >= 300 * MB || server.process.child.exitCode !== null, 180_000, "the agent to send 300 MB");
    const seconds = (Date.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 500)); // the last lines reach the transcript
    assert.equal(server.process.child.exitCode, null, `the server ended:\n${server.process.stderr().slice(-2000)}`);
    assert.ok(memory.peakMb() < RSS_LIMIT_MB, `the server grew to ${memory.peakMb().toFixed(0)} MB with no page attached`);

    const again = new Page(server, "flood-named", true);
    await again.opened;
    await eventually(() => again.events().some((event) => event.kind === "turnEnd"), 30_000, "the replay, up to the end of the turn");
    memory.stop();
    assert.ok(memory.peakMb() < RSS_LIMIT_MB, `the server grew to ${memory.peakMb().toFixed(0)} MB replaying its transcript`);
    console.log(
      `# no page: 300 MB in ${seconds.toFixed(1)} s (${(300 / seconds).toFixed(0)} MB/s); server peak RSS ${memory.peakMb().toFixed(0)} MB; replay ${again.frames.length} frames`,
    );

    const replayAt = again.frames.findIndex((frame) => frame.startsWith('{"type":"replay"'));
    assert.ok(replayAt >= 0, "a replay frame");
    assert.ok(again.frames.length - replayAt > 4, `the replay came in ${again.frames.length - replayAt} frames`);
    const largest = Math.max(...again.frames.map((frame) => frame.length));
    assert.ok(largest < 1 * MB, `a frame of ${(largest / MB).toFixed(1)} MB`);
    const events = again.events();
    const firstEvent = events[0];
    assert.ok(
      firstEvent?.kind === "notice" && firstEvent.message.includes("Earlier output trimmed"),
      `the replay starts with the trim notice: ${JSON.stringify(firstEvent).slice(0, 200)}`,
    );
    const text = agentText(events);
    assert.ok(text.length <= 4 * MB && text.length >= 2 * MB, `the replay holds ${(text.length / MB).toFixed(1)} MB of text (the server keeps 4 MB)`);
    assert.ok(text.endsWith("END-OF-FLOOD"), "the newest output is kept");
    assert.equal(events.filter((event) => event.kind === "user").length, 0, "the prompt, the oldest event, was trimmed");
    await again.close();
  });

  it("terminals printing to a page that does not read: only each terminal's latest view waits, the server stays small", async () => {
    const { server, progress } = await floodServer();
    const memory = watchServer(server);
    const page = new Page(server);
    await page.ready();
    page.prompt(`terminals ${PRINTING_TERMINALS}`);
    await eventually(() => progressOf(progress) === PRINTING_TERMINALS || server.process.child.exitCode !== null, 30_000, "the terminals to start");
    page.stopReading();
    const stalled = watchServer(server);
    const stalledAt = page.messages.length;
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    memory.stop();
    stalled.stop();
    assert.equal(server.process.child.exitCode, null, `the server ended:\n${server.process.stderr().slice(-2000)}`);
    assert.ok(
      memory.peakMb() < RSS_LIMIT_MB,
      `the server grew to ${memory.peakMb().toFixed(0)} MB while ${PRINTING_TERMINALS} terminals printed to a page that did not read`,
    );
    console.log(
      `# ${PRINTING_TERMINALS} printing terminals: server peak RSS ${memory.peakMb().toFixed(0)} MB (${stalled.peakMb().toFixed(0)} MB while the page did not read, 8 s)`,
    );

    // Reading again, the page gets every terminal's newest view: lines printed well after it stopped reading.
    const views = (from: number, to?: number) =>
      page.messages.slice(from, to).flatMap((message) => (message.type === "event" && message.event.kind === "terminal" ? [message.event] : []));
    const newestLine = (event: TranscriptEvent) => Number(/line (\d+)\n$/.exec(event.kind === "terminal" ? event.output : "")?.[1] ?? 0);
    const before = new Map<string, number>();
    for (const event of views(0, stalledAt))
      if (event.kind === "terminal") before.set(event.terminalId, Math.max(before.get(event.terminalId) ?? 0, newestLine(event)));
    page.resumeReading();
    const caughtUp = () =>
      new Set(
        views(stalledAt).flatMap((event) =>
          event.kind === "terminal" && newestLine(event) > (before.get(event.terminalId) ?? 0) + 150 ? [event.terminalId] : [],
        ),
      );
    await eventually(() => caughtUp().size === PRINTING_TERMINALS, 30_000, "a view of every terminal printed after the stall");
    page.socket.send(JSON.stringify({ type: "cancel" }));
    const [agentPid] = server.agentPids();
    await page.close();
    await eventually(() => !isAlive(agentPid!), 10_000, "the agent to end with its page");
  });

  it("bounds the output a conversation's terminals keep: the sum of their limits, a terminal past it refused with why", async () => {
    const { server } = await floodServer();
    const page = new Page(server);
    await page.ready();
    page.prompt("hold 3 16");
    await eventually(() => /created \d/.test(agentText(page.events())), 10_000, "the agent's report");
    const report = agentText(page.events());
    assert.match(report, /^created 2; refused: .*32 MiB/, report);
    assert.match(report, /terminal\/release/, "the refusal says how to make room");
    page.prompt("hold 1 1");
    await eventually(() => agentText(page.events()).length > report.length, 10_000, "the second report");
    assert.match(agentText(page.events()).slice(report.length), /^created 0; refused/, "the session's budget is spent");
    await page.close();
  });

  it("caps live conversations: a page past the cap is told why; a conversation with no page makes room", async () => {
    const { server } = await floodServer(["--max-conversations", "3"]);
    const pages = [new Page(server), new Page(server), new Page(server)];
    await Promise.all(pages.map((page) => page.ready()));

    const refused = new Page(server);
    await refused.opened;
    await eventually(() => refused.closeCode !== undefined, 5_000, "the fourth page's socket to close");
    assert.equal(refused.closeCode, 1013);
    const ended = refused.messages.find((message) => message.type === "session");
    assert.ok(ended?.type === "session" && ended.session.state === "ended", "the page hears its conversation cannot start");
    assert.match(ended.session.ended!.message, /already runs 3 conversations/);
    assert.match(ended.session.ended!.message, /symposium\.chat\.maxConversations/);
    assert.equal(server.agentPids().length, 3, "no fourth agent started");
    assert.equal(server.process.child.exitCode, null);

    // Named conversations opened and closed: each waits for its page in its
    // grace period, but a new one takes the place of the one idle longest.
    await pages[0]!.close();
    for (let index = 0; index < 6; index++) {
      const page = new Page(server, `named-${index}`);
      await page.ready();
      await page.close();
    }
    await eventually(() => server.agentPids().filter(isAlive).length <= 3, 5_000, "at most 3 agents alive");
    const newest = new Page(server, "named-5");
    await newest.ready();
    assert.ok(
      !newest.messages.some((message) => message.type === "session" && message.session.state === "ended"),
      "the newest named conversation is still there",
    );
    await Promise.all([newest, ...pages].map((page) => page.close()));
  });

  it("takes the cap from the setting symposium.chat.maxConversations, for the built-in chat only", () => {
    const inputs = {
      config: { toadCommand: "builtin", toadPort: 0, acpAgentPath: "", editorContextEnabled: true, chatMaxConversations: 5 },
      runtime: { program: process.execPath, script: "/ext/dist/symposium-panel-host.mjs", env: {} },
      extensionPath: "/ext",
      cwd: tempDir("symposium-project-"),
      noticeToadMissing: () => {},
    };
    const builtin = planLaunch(inputs);
    assert.equal(parseArgs(builtin.frontend.args.slice(1)).maxConversations, 5, `the chat's arguments: ${builtin.frontend.args.join(" ")}`);
    const toad = planLaunch({ ...inputs, config: { ...inputs.config, toadCommand: process.execPath } });
    assert.ok(!toad.frontend.args.includes("--max-conversations"), "Toad would refuse a flag it does not know");
    assert.throws(() => parseArgs(["acp", "agent", "--max-conversations", "0"]), /--max-conversations must be a whole number from 1/);
  });
});
