// P10 (first token) and P11 (memory of one chat session), measured together:
// each round starts a chat server whose agent command is the conductor (with
// the editor-context hook on) in front of the bench chat agent, opens the
// page in Chromium and, interleaved, an SDK client on the same agent over
// stdio; both get PROMPTS prompts, one after the other.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { browserFloor, frameTap, socketClient, type TappedChunk } from "./chat-floors.js";
import { CHAT_AGENT, CONDUCTOR_CLI, descendants, launchBrowser, openChat, pageProbe, startChatServer, typePrompt, type PageProbe } from "./chat-page.js";
import { RUNS, freshStateFile, median, node, percentile, residentKb, type Figure } from "./common.js";

const PROMPTS = 5;

interface Sample {
  ms: number;
  /** Page → agent, agent → page, page's render: wall clocks of both processes. */
  legs: [number, number, number];
  /** The agent's chunk: its `bench/sentAt`, and when its websocket message reached the page (wall clock). */
  chunk: { sentAt: number; arrivedAt: number };
}

async function pageFirstToken(page: Page, text: string): Promise<Sample> {
  await typePrompt(page, text);
  await page.waitForFunction(() => (window as unknown as { benchProbe: PageProbe }).benchProbe.shownAt > 0, undefined, { timeout: 10_000 });
  const sample = await page.evaluate(() => {
    const probe = (window as unknown as { benchProbe: PageProbe }).benchProbe;
    const chunk = probe.chunks[probe.firstChunk]!;
    return {
      ms: probe.shownAt - probe.sentAt,
      legs: [chunk.receivedAt! - probe.sentAt, chunk.arrivedAt - chunk.sentAt, probe.shownAt - chunk.arrivedAt] as [number, number, number],
      chunk: { sentAt: chunk.sentAt, arrivedAt: chunk.arrivedAt },
    };
  });
  await page.waitForSelector("body[data-state=ready]", { timeout: 10_000 });
  return sample;
}

/** The same agent, an SDK client over its stdio: prompt sent → first chunk received. */
async function directClient() {
  const agentProcess = spawn(CHAT_AGENT[0]!, CHAT_AGENT.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  let firstChunk: (() => void) | undefined;
  const connection = client({ name: "bench" })
    .onNotification("session/update", ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk") firstChunk?.();
    })
    .connect(ndJsonStream(Writable.toWeb(agentProcess.stdin) as WritableStream<Uint8Array>, Readable.toWeb(agentProcess.stdout) as ReadableStream<Uint8Array>));
  await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  return {
    pid: agentProcess.pid!,
    firstToken: async (text: string): Promise<number> => {
      const started = performance.now();
      let shown = 0;
      const chunk = new Promise<void>((resolve) => (firstChunk = resolve));
      const answered = connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      await chunk.then(() => (shown = performance.now()));
      firstChunk = undefined;
      await answered;
      return shown - started;
    },
    stop: async () => {
      connection.close();
      const exited = new Promise((resolve) => agentProcess.once("exit", resolve));
      agentProcess.stdin.end();
      await exited;
    },
  };
}

interface Round {
  chat: Sample[];
  /** The chat's chunks as the tap saw them leave the server. */
  tapped: TappedChunk[];
  direct: number[];
  /** The same server and chain, a websocket client in Node (no browser). */
  socket: number[];
  /** A bare page's websocket echo after Enter (the browser's floor). */
  floor: number[];
  memory: { serverIdleKb: number; serverKb: number; conductorKb: number; othersKb: number; agentUnderChatKb: number; agentAloneKb: number };
}

/** The chat's agent command as the extension gives it: our conductor's `run`, its config naming the bench agent. */
export function conductorRun(dir: string): string[] {
  const config = path.join(dir, "chat-config.jsonc");
  fs.writeFileSync(config, JSON.stringify({ agent: quote(CHAT_AGENT) }));
  return [node, CONDUCTOR_CLI, "run", "--config", config];
}

async function round(dir: string, project: string, browser: Awaited<ReturnType<typeof launchBrowser>>): Promise<Round> {
  const stateFile = freshStateFile(dir); // fresh for the reader's 30 s limit
  const server = await startChatServer(conductorRun(dir), project, { [STATE_FILE_ENV]: stateFile });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const serverIdleKb = residentKb(server.child.pid);
    const tap = await frameTap(server.url);
    const [page, direct] = await Promise.all([openChat(browser, tap.url, pageProbe), directClient()]);
    const floor = await browserFloor(browser);
    let socket: Awaited<ReturnType<typeof socketClient>> | undefined;
    const result: Round = {
      chat: [],
      tapped: tap.chunks,
      direct: [],
      socket: [],
      floor: [],
      memory: { serverIdleKb, serverKb: 0, conductorKb: 0, othersKb: 0, agentUnderChatKb: 0, agentAloneKb: 0 },
    };
    for (let i = 0; i < PROMPTS; i++) {
      result.chat.push(await pageFirstToken(page, `hello ${i}`));
      result.direct.push(await direct.firstToken(`hello ${i}`));
      result.floor.push(await floor.echo(`hello ${i}`));
      if (i === 0) result.memory = { ...sessionMemory(server.child.pid!), serverIdleKb, agentAloneKb: residentKb(direct.pid) };
      // After the memory reading: its conversation runs a second conductor and agent.
      socket ??= await socketClient(server.url);
      if (i > 0) result.socket.push(await socket.firstToken(`hello ${i}`));
    }
    await Promise.all([page.close(), direct.stop(), floor.stop(), socket?.stop()]);
    await tap.stop();
    return result;
  } finally {
    await server.stop();
  }
}

/**
 * P11's comparison arm in the same runs: the chat running the conductor as a process per conversation
 * (SYMPOSIUM_CHAT_CONDUCTOR_IN_PROCESS=0, as before issue 38), one conversation by a websocket client.
 */
async function processArmMemory(dir: string): Promise<number> {
  const env = { [STATE_FILE_ENV]: freshStateFile(dir), SYMPOSIUM_CHAT_CONDUCTOR_IN_PROCESS: "0" };
  const server = await startChatServer(conductorRun(dir), dir, env);
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const serverIdleKb = residentKb(server.child.pid);
    const socket = await socketClient(server.url);
    await socket.firstToken("hello");
    const memory = sessionMemory(server.child.pid!);
    await socket.stop();
    return memory.serverKb - serverIdleKb + memory.conductorKb + memory.othersKb;
  } finally {
    await server.stop();
  }
}

function sessionMemory(serverPid: number) {
  let conductorKb = 0;
  let agentUnderChatKb = 0;
  let othersKb = 0; // the shell the server runs the command line through, if it stays
  for (const { pid, command } of descendants(serverPid)) {
    if (command.includes(path.basename(CONDUCTOR_CLI))) conductorKb += residentKb(pid);
    else if (command.includes(path.basename(CHAT_AGENT[1]!))) agentUnderChatKb += residentKb(pid);
    else othersKb += residentKb(pid);
  }
  return { serverKb: residentKb(serverPid), conductorKb, othersKb, agentUnderChatKb };
}

export async function chatFigures(dir: string): Promise<Figure[]> {
  const projectDir = fs.mkdtempSync(path.join(dir, "chat-"));
  // The chat's project, apart from the files each round writes (its config and the editor's state file, which
  // VS Code keeps in its own storage): a project nobody is writing while the prompts are typed.
  const project = path.join(projectDir, "project");
  fs.mkdirSync(path.join(project, "src"), { recursive: true });
  fs.writeFileSync(path.join(project, "README.md"), "# A small project\n");
  fs.writeFileSync(path.join(project, "src", "main.ts"), "export const answer = 42;\n");
  const browser = await launchBrowser();
  const rounds: Round[] = [];
  const processArm: number[] = [];
  try {
    await round(projectDir, project, browser); // warm-up: page cache, Chromium's first page
    for (let i = 0; i < RUNS; i++) {
      rounds.push(await round(projectDir, project, browser));
      processArm.push(await processArmMemory(projectDir));
    }
  } finally {
    await browser.close();
  }
  const chat = rounds.flatMap((r) => r.chat.map((sample) => sample.ms));
  const leg = (i: number) => median(rounds.flatMap((r) => r.chat.map((sample) => sample.legs[i]!))).toFixed(1);
  const direct = rounds.flatMap((r) => r.direct);
  // The agent → page leg split where its frame left the server (the tap): the chain back, then the browser.
  const split = rounds.flatMap((r) =>
    r.chat.flatMap(({ chunk }) => {
      const tapped = r.tapped.find((each) => each.sentAt === chunk.sentAt);
      return tapped ? [{ chain: tapped.leftServerAt - chunk.sentAt, browser: chunk.arrivedAt - tapped.leftServerAt }] : [];
    }),
  );
  const splitLeg = (pick: (s: (typeof split)[number]) => number) => (split.length > 0 ? median(split.map(pick)).toFixed(1) : "?");
  const added = median(chat) - median(direct);
  const socket = rounds.flatMap((r) => r.socket);
  const floor = rounds.flatMap((r) => r.floor);
  const mb = (pick: (m: Round["memory"]) => number) => median(rounds.map((r) => pick(r.memory))) / 1024;
  const share = mb((m) => m.serverKb - m.serverIdleKb);
  const conductor = mb((m) => m.conductorKb);
  const others = mb((m) => m.othersKb);
  const overhead = mb((m) => m.serverKb - m.serverIdleKb + m.conductorKb + m.othersKb);
  return [
    {
      id: "P10",
      what: "first token: prompt typed in the chat page → first chunk on the page (server, conductor with the hook, agent)",
      value: `+${added.toFixed(1)} ms over direct (p50)`,
      goal: "p50 ≤ +5 ms over direct",
      met: added <= 5,
      detail: `page p50 ${median(chat).toFixed(1)} ms, p90 ${percentile(chat, 90).toFixed(1)} ms (Enter keydown → the chunk in the DOM, timed in the page; legs, p50: page → agent ${leg(0)} ms, agent → page ${leg(1)} ms (the agent → its frame leaving the server ${splitLeg((s) => s.chain)} ms, leaving the server → the page's message event ${splitLeg((s) => s.browser)} ms), page's render ${leg(2)} ms); SDK client over stdio p50 ${median(direct).toFixed(2)} ms; ${chat.length} prompts each, interleaved, ${RUNS} sessions. Where it goes: the same server and chain seen by a websocket client in Node, p50 ${median(socket).toFixed(2)} ms (+${(median(socket) - median(direct)).toFixed(1)} ms over direct); the browser's floor, a bare page that sends on Enter and clears its input, answered at once by a Node echo server: p50 ${median(floor).toFixed(1)} ms, p90 ${percentile(floor, 90).toFixed(1)} ms`,
    },
    {
      id: "P11",
      what: "memory of one chat session: the server's growth (the conductor with the hook runs in it) + any process between it and the agent",
      value: `+${overhead.toFixed(1)} MB over the agent`,
      goal: "≤ 15 MB over the agent",
      met: overhead <= 15,
      detail: `VmRSS, median of ${RUNS} sessions after the first answer: the server grows ${share.toFixed(1)} MB (from ${mb((m) => m.serverIdleKb).toFixed(1)} MB idle; the page's share of a server that is shared), the conductor ${conductor.toFixed(1)} MB${others > 0.05 ? `, the shell ${others.toFixed(1)} MB` : ""}; the agent alone ${mb((m) => m.agentAloneKb).toFixed(1)} MB (under the chat ${mb((m) => m.agentUnderChatKb).toFixed(1)} MB); with the conductor as a process per conversation (SYMPOSIUM_CHAT_CONDUCTOR_IN_PROCESS=0, as before), same runs: +${(median(processArm) / 1024).toFixed(1)} MB`,
    },
  ];
}
