// The built-in chat for the chat figures: the real server (dist/), real
// Chromium, pages opened and typed into like a user, and the processes a
// conversation starts found under the server.

import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Browser, Page } from "playwright-core";
import { agentArgs } from "../../test/support/webchat-server.js";
import { OUT, REPO, node } from "./common.js";

// The tests' Chromium (CHROMIUM_PATH, else Debian's), launched with the same flags.
export { CHROMIUM, launchBrowser } from "../../test/harness/code-server.js";

export const CHAT_AGENT = [node, path.join(OUT, "bench", "programs", "chat-agent.js")];
/** BENCH_DIST: another bundle folder (a copy of an older dist/) to compare builds back to back. */
const DIST = process.env.BENCH_DIST ? path.resolve(process.env.BENCH_DIST) : path.join(REPO, "dist");
const WEBCHAT = path.join(DIST, "symposium-webchat.mjs");
export const CONDUCTOR_CLI = path.join(DIST, "symposium-conductor.mjs");

export interface ChatServerProcess {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts `symposium-webchat acp --agent-program <command>… --serve` on a free port (no shell, as the extension does); resolves with the URL it prints. */
export async function startChatServer(command: string[], projectDir: string, env: NodeJS.ProcessEnv = {}): Promise<ChatServerProcess> {
  // BENCH_SERVER_NODE_ARGS: Node options for the server alone (e.g. --cpu-prof --cpu-prof-dir=DIR to profile it).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(
    node,
    [...nodeArgs, WEBCHAT, "acp", ...agentArgs({ agent: command }), "--serve", "--port", "0", "--host", "127.0.0.1", "--project-dir", projectDir],
    {
      env: { ...process.env, SYMPOSIUM_CHAT_TOKEN: "", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the chat server did not start:\n${stderr}`)), 10_000);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const line = /^(http:\/\/\S+)$/m.exec(stderr);
      if (line) {
        clearTimeout(timer);
        resolve(line[1]!);
      }
    });
    child.once("exit", () => reject(new Error(`the chat server exited:\n${stderr}`)));
  });
  return {
    child,
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A new page on the chat (a new conversation and agent), ready for a prompt. */
export async function openChat(browser: Browser, url: string, initScript: () => void): Promise<Page> {
  const page = await browser.newPage();
  await page.addInitScript(initScript);
  await page.goto(url);
  await page.waitForSelector("body[data-state=ready]", { timeout: 15_000 });
  return page;
}

/** Types `text` into the chat input and presses Enter, as a user does. */
export async function typePrompt(page: Page, text: string): Promise<void> {
  await page.fill("#input", text);
  await page.keyboard.press("Enter");
}

/** The processes under `pid` (Linux /proc), with their command lines. */
export function descendants(pid: number): Array<{ pid: number; command: string }> {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: Array<{ pid: number; command: string }> = [];
  const visit = (parent: number): void => {
    for (const child of children.get(parent) ?? []) {
      let command = "";
      try {
        command = fs.readFileSync(`/proc/${child}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        // gone meanwhile
      }
      found.push({ pid: child, command });
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** One answer chunk as the page saw it; times are wall-clock ms (performance.timeOrigin + now()), as the bench agent stamps them. */
export interface ProbeChunk {
  /** When the agent sent it, and (first-token answers) when it received the prompt. */
  sentAt: number;
  receivedAt?: number;
  /** When its websocket message reached the page, and when the render that shows it ended. */
  arrivedAt: number;
  shownAt: number;
  /** How long that render took (the page's "rendered" event says). */
  renderMs: number;
}

export interface PageProbe {
  /** The last Enter keydown, and when the first answer chunk after it was in the DOM. */
  sentAt: number;
  shownAt: number;
  answers: number;
  /** Index in `chunks` of the first chunk after the last Enter. */
  firstChunk: number;
  chunks: ProbeChunk[];
  /** Chunks not yet shown by a render. */
  pending: ProbeChunk[];
}

/** Runs in the page before its own script (page.addInitScript): notes prompts, chunks and renders in `window.benchProbe`. */
export function pageProbe(): void {
  const wall = () => performance.timeOrigin + performance.now();
  const probe: PageProbe = { sentAt: 0, shownAt: 0, answers: 0, firstChunk: 0, chunks: [], pending: [] };
  (window as unknown as { benchProbe: PageProbe }).benchProbe = probe;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      // Registered before the page's own listener: runs first in the task that delivers the message.
      this.addEventListener("message", (event) => {
        interface Message {
          type: string;
          messages?: Message[];
          event?: { kind: string; update?: { _meta?: Record<string, number> } };
        }
        const arrivedAt = wall();
        const note = (message: Message): void => {
          if (message.type === "batch") return message.messages?.forEach(note); // several updates in one frame: each arrived with it
          const meta = message.type === "event" && message.event?.kind === "update" ? message.event.update?._meta : undefined;
          if (meta?.["bench/sentAt"] === undefined) return;
          const chunk: ProbeChunk = { sentAt: meta["bench/sentAt"], receivedAt: meta["bench/receivedAt"], arrivedAt, shownAt: 0, renderMs: 0 };
          probe.chunks.push(chunk);
          probe.pending.push(chunk);
        };
        note(JSON.parse(String(event.data)) as Message);
      });
    }
  };
  document.addEventListener(
    "keydown",
    (event) => {
      if (event.key !== "Enter" || event.shiftKey) return;
      Object.assign(probe, { sentAt: wall(), shownAt: 0, answers: document.querySelectorAll(".message.agent").length, firstChunk: probe.chunks.length });
    },
    true,
  );
  // Called in the same task as the DOM change, right after it.
  new MutationObserver(() => {
    if (probe.sentAt === 0 || probe.shownAt !== 0) return;
    const answers = document.querySelectorAll(".message.agent");
    if (answers.length > probe.answers && answers[answers.length - 1]!.textContent.trim() !== "") probe.shownAt = wall();
  }).observe(document, { subtree: true, childList: true, characterData: true });
  document.addEventListener(
    "rendered",
    (event) => {
      const renderMs = (event as CustomEvent<{ renderMs: number }>).detail.renderMs;
      const shownAt = wall();
      for (const chunk of probe.pending) Object.assign(chunk, { shownAt, renderMs });
      probe.pending = [];
    },
    true, // the page dispatches it on the transcript without bubbling
  );
}
