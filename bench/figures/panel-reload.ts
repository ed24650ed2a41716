// P8: a window reload → the chat in the panel live again, against a cold start
// of the same panel, in code-server + Chromium (test/e2e/panel-helpers.ts).
// One code-server and one browser for all runs; interleaved: a cold start
// (Stop Chat, then Restart Chat: host, frontend, chat page) and a reload
// (Developer: Reload Window). "Live" is the chat page's first message from its
// server; "ready" is when its agent session said ready. The pages note nothing
// for the bench: a script the bench injects into every frame (noteMoments)
// notes these on the wall clock (the same machine's clock as this process).
// Both clocks start when the command's Enter is pressed.
// Before each reload the chat answers one question, so there is a conversation to
// bring back; the same script notes when the panel shows its kept copy of it,
// before the chat page is live behind it.
// P8-Toad: the same with the real Toad as the panel's chat (its first output).

import * as fs from "node:fs";
import type { Frame, Page } from "playwright-core";
import type { CodeServer } from "../../test/harness/code-server.js";
import { chatFrame, closeDemoWindow, command, extensionLog, openDemoWindow, panelStatusFrame } from "../../test/e2e/panel-helpers.js";
import { hostProcesses } from "../../test/support/panel-host.js";
import { TOAD_LAUNCHER, TOAD_SKIP_REASON } from "../../test/support/toad.js";
import { median, RUNS, type Figure } from "./common.js";

interface Sample {
  /** Command's Enter → first server message in the chat page. */
  live: number;
  /** Command's Enter → the agent session ready. */
  ready: number;
  /** Reloads only: the workbench's status bar back → first server message (the panel's own share). */
  share?: number;
  /** Reloads only: the workbench back → each step the extension logs, then → the chat's first message. */
  legs?: Legs;
  /** Reloads only: the workbench back → the panel showing its kept copy of the conversation (webview/page/kept-conversation.ts). */
  kept?: number;
}

/** Where the panel's share of a reload goes, from the extension's log (its own clock lines). */
interface Legs {
  /** Workbench back → the extension activated (VS Code starting the extension host and activating). */
  activated: number;
  /** → the panel's webview resolved ("chat panel opened"). */
  viewResolved: number;
  /** → the extension attached to the running host ("panel: ready": identity checked, chat URL set). */
  attached: number;
  /** → the chat page's navigation starts (the webview's own frames load, then it is given the chat's URL). */
  chatNavigation: number;
  /** → the chat page loaded (its document, script and style through code-server's proxy). */
  chatLoaded: number;
  /** → the chat page's first message from its server (its websocket through the proxy). */
  chatLive: number;
}

type LoggedStep = Exclude<keyof Legs, "chatNavigation" | "chatLoaded" | "chatLive">;

const LOG_STEPS: Array<[LoggedStep, RegExp]> = [
  ["activated", /\] Symposium .* activated/],
  ["viewResolved", /\] chat panel opened/],
  ["attached", /\] panel: ready/],
];

/** The wall-clock time of the first log line matching each step after `since` (log lines are local time, as this process's clock). */
function loggedSteps(server: CodeServer, since: number): Record<LoggedStep, number> {
  const lines = extensionLog(server)
    .split("\n")
    .map((line) => ({ line, at: new Date(line.slice(0, 23).replace(" ", "T")).getTime() }));
  const at = (pattern: RegExp) => lines.find(({ line, at }) => at >= since && pattern.test(line))?.at ?? Number.NaN;
  return Object.fromEntries(LOG_STEPS.map(([step, pattern]) => [step, at(pattern)])) as Record<LoggedStep, number>;
}

/** Which chat the panel runs: the built-in chat (the default) or the real Toad (scripts/install-toad.sh). */
type Frontend = "builtin" | "toad";

/** When a page reached each moment the figures time (wall clock, this machine's: the bench's own clock); NaN until it has. */
export interface Moments {
  /** The chat page's first message from its server; for Toad's page, the first output of its app. */
  firstMessageAt: number;
  /** The built-in chat's agent session ready (its <body data-state="ready">). */
  readyAt: number;
  /** The panel page showing its kept copy of the conversation (its <body class="keeping">, webview/page/kept-conversation.ts). */
  keptShownAt: number;
}

/**
 * Injected by the bench into every frame of its browser page (page.addInitScript), never part of
 * the pages themselves: notes the moments above in `window.symposiumMoments`, from what each page
 * does anyway (its websocket's messages, the attributes its script sets). For Toad's page (its
 * screen is a canvas fed by one websocket) the first output is the first binary message over 10
 * bytes, textual-serve's own rule for `-first-byte` (its first text message is only the pong to
 * the page's ping). A function, not a string: the pages' CSPs allow no eval.
 */
export function noteMoments(toad: boolean): void {
  const moments: Moments = { firstMessageAt: NaN, readyAt: NaN, keptShownAt: NaN };
  (window as unknown as { symposiumMoments: Moments }).symposiumMoments = moments;
  const once = (key: keyof Moments) => {
    if (!(moments[key] > 0)) moments[key] = Date.now();
  };
  // A frame's first document (about:blank) may hand its window on to the page it navigates to: the
  // patched WebSocket stays, but each new document is watched again (on its DOMContentLoaded, or its socket).
  const watched = new WeakSet<Document>();
  const check = () => {
    if (document.body?.dataset.state === "ready") once("readyAt");
    if (document.body?.classList.contains("keeping")) once("keptShownAt");
  };
  const watch = () => {
    if (watched.has(document)) return;
    watched.add(document);
    new MutationObserver(check).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state", "class"] });
    check();
  };
  window.WebSocket = class extends window.WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      watch();
      this.addEventListener("message", (event: MessageEvent<unknown>) => {
        if (!toad || (typeof event.data !== "string" && (event.data as ArrayBuffer).byteLength > 10)) once("firstMessageAt");
      });
    }
  };
  watch();
  window.addEventListener("DOMContentLoaded", watch, true);
}

/** A frame's moments (none where the init script did not run). */
export function framesMoments(frame: Frame): Promise<Moments> {
  return frame
    .evaluate(() => (window as unknown as { symposiumMoments?: Moments }).symposiumMoments ?? { firstMessageAt: NaN, readyAt: NaN, keptShownAt: NaN })
    .catch(() => ({ firstMessageAt: NaN, readyAt: NaN, keptShownAt: NaN }));
}

/** [first server message, agent session ready, navigation start, DOMContentLoaded] of a chat frame; Toad's page says nothing of its session: its first output stands for both. */
async function frameStamps(frame: Frame, frontend: Frontend): Promise<number[]> {
  const moments = await framesMoments(frame);
  const navigation = await frame
    .evaluate(() => {
      const entry = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
      return [performance.timeOrigin, entry === undefined ? NaN : performance.timeOrigin + entry.domContentLoadedEventEnd];
    })
    .catch(() => [NaN, NaN]);
  return [moments.firstMessageAt, frontend === "toad" ? moments.firstMessageAt : moments.readyAt, ...navigation];
}

/**
 * Until `stop` resolves: the earliest time a panel page (the webview's document with the
 * panel's #status) stamped that it showed its kept copy of the conversation, after `since`.
 */
async function keptShown(page: Page, since: number, stop: Promise<unknown>): Promise<number> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  let earliest = Number.NaN;
  while (!stopped) {
    for (const frame of page.frames().filter((each) => each.url().includes("fake.html"))) {
      // VS Code writes the panel page into its frame (document.write), where the injected script may not see it: then seen by polling.
      const noted = (await framesMoments(frame)).keptShownAt;
      const seen = noted > 0 ? noted : await frame.evaluate(() => document.body?.classList.contains("keeping") === true).catch(() => false);
      const at = typeof seen === "number" ? seen : seen ? Date.now() : Number.NaN;
      if (at > since && !(at >= earliest)) earliest = at;
    }
    await page.waitForTimeout(20);
  }
  return earliest;
}

/** The chat frame whose first server message came after `since` (a new page), with its stamps. */
async function liveChat(
  page: Page,
  since: number,
  frontend: Frontend,
  timeoutMs = 60_000,
): Promise<{ frame: Frame; firstMessageAt: number; readyAt: number; navigationAt: number; loadedAt: number }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames().filter((each) => /[?&]token=/.test(each.url()))) {
      const stamps = await frameStamps(frame, frontend);
      if (stamps[0]! > since && stamps[1]! > since)
        return { frame, firstMessageAt: stamps[0]!, readyAt: stamps[1]!, navigationAt: stamps[2]!, loadedAt: stamps[3]! };
    }
    await page.waitForTimeout(50);
  }
  throw new Error("P8: the chat did not come back");
}

async function coldStart(page: Page, workspace: string, frontend: Frontend): Promise<Sample> {
  await command(page, "Symposium: Stop Chat");
  await panelStatusFrame(page, /The chat is stopped/, 10_000);
  if (hostProcesses(workspace).length > 0) throw new Error(`P8: a host outlived Stop (${hostProcesses(workspace).join(", ")})`);
  await command(page, "Symposium: Restart Chat");
  const started = Date.now();
  const chat = await liveChat(page, started, frontend);
  return { live: chat.firstMessageAt - started, ready: chat.readyAt - started };
}

/**
 * One question and its answer in the chat, so that a reload has a conversation to bring
 * back (and the panel a copy of it to keep); then the page's copy has had time to reach the panel.
 */
async function converse(page: Page): Promise<void> {
  const frame = await chatFrame(page, "body[data-state=ready]", 60_000);
  await frame.locator("#input").fill("What does this line do?");
  await frame.locator("#input").press("Enter");
  await frame.locator(".message.agent").first().waitFor({ timeout: 30_000 });
  await frame.locator("body[data-state=ready]").waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1_500); // the chat page sends its copy at most once a second
}

async function reload(page: Page, server: CodeServer, frontend: Frontend): Promise<Sample> {
  if (frontend === "builtin") await converse(page);
  const loaded = page.waitForEvent("domcontentloaded", { timeout: 60_000 });
  await command(page, "Developer: Reload Window");
  const started = Date.now();
  await loaded;
  await page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
  const workbench = Date.now();
  const live = liveChat(page, started, frontend);
  const keptAt = keptShown(
    page,
    started,
    live.catch(() => undefined),
  );
  const chat = await live;
  await page.waitForTimeout(300); // the log file is written in batches
  const steps = loggedSteps(server, started - 1000);
  const legs: Legs = {
    activated: steps.activated - workbench,
    viewResolved: steps.viewResolved - steps.activated,
    attached: steps.attached - steps.viewResolved,
    chatNavigation: chat.navigationAt - steps.attached,
    chatLoaded: chat.loadedAt - chat.navigationAt,
    chatLive: chat.firstMessageAt - chat.loadedAt,
  };
  return { live: chat.firstMessageAt - started, ready: chat.readyAt - started, share: chat.firstMessageAt - workbench, legs, kept: (await keptAt) - workbench };
}

/** P8 with the built-in chat (the default when no `toad` is found). */
export function p8(): Promise<Figure> {
  return panelReload("builtin");
}

/** P8 with the real Toad (symposium.toadCommand = the launcher of scripts/install-toad.sh); none when it is not installed. */
export async function p8Toad(): Promise<Figure[]> {
  if (!fs.existsSync(TOAD_LAUNCHER)) {
    process.stderr.write(`P8-Toad ${TOAD_SKIP_REASON}\n`);
    return [];
  }
  return [await panelReload("toad")];
}

async function panelReload(frontend: Frontend): Promise<Figure> {
  const window = await openDemoWindow({}, frontend === "toad" ? { "symposium.toadCommand": TOAD_LAUNCHER } : {});
  const cold: Sample[] = [];
  const reloads: Sample[] = [];
  try {
    const { page, workspace, server } = window;
    await page.addInitScript(noteMoments, frontend === "toad");
    await command(page, "Symposium: Open Chat");
    await chatFrame(page, frontend === "toad" ? "body.-first-byte" : "body[data-state=ready]", 60_000);
    for (let round = 0; round <= RUNS; round++) {
      const c = await coldStart(page, workspace, frontend);
      const r = await reload(page, server, frontend);
      if (round === 0) continue; // round 0 warms the caches
      cold.push(c);
      reloads.push(r);
    }
  } finally {
    await closeDemoWindow(window.browser, window.server, window.workspace);
  }
  const m = (samples: Sample[], pick: (s: Sample) => number) => median(samples.map(pick));
  const share = m(reloads, (s) => s.share!);
  const coldLive = m(cold, (s) => s.live);
  const whole = m(reloads, (s) => s.live);
  const leg = (pick: (legs: Legs) => number) => m(reloads, (s) => pick(s.legs!)).toFixed(0);
  const legs = `the share's legs (medians, from the extension's log): workbench back → extension activated ${leg((l) => l.activated)} ms, → panel view resolved ${leg((l) => l.viewResolved)} ms, → attached to the running host ${leg((l) => l.attached)} ms, → the chat page's navigation starts ${leg((l) => l.chatNavigation)} ms, → loaded ${leg((l) => l.chatLoaded)} ms, → its first message ${leg((l) => l.chatLive)} ms`;
  const keptSamples = reloads.map((s) => s.kept!).filter((ms) => Number.isFinite(ms));
  // The conversation is on screen again with the panel's kept copy, or else with the chat page live.
  const seen = (s: Sample) => Math.min(s.share!, Number.isFinite(s.kept) ? s.kept! : Infinity);
  const kept =
    (keptSamples.length > 0
      ? `; the panel showed its kept copy of the conversation ${median(keptSamples).toFixed(0)} ms after the workbench was back (${keptSamples.length} of ${reloads.length} reloads)`
      : "; the panel showed no kept copy of the conversation") +
    `; the conversation on screen again (kept copy, else the chat live): ${m(reloads, seen).toFixed(0)} ms after the workbench was back, ${m(reloads, (s) => seen(s) - s.legs!.activated).toFixed(0)} ms after the extension activated`;
  const session = frontend === "toad" ? "" : `, agent session ready ${m(cold, (s) => s.ready).toFixed(0)} ms`;
  const reloadSession = frontend === "toad" ? "" : `, session ready ${m(reloads, (s) => s.ready).toFixed(0)} ms`;
  return {
    id: frontend === "toad" ? "P8-Toad" : "P8",
    what:
      frontend === "toad"
        ? "the same with the real Toad (batrachian-toad 0.6.20) in the panel: window reload → Toad's page live again (the first output of its new Toad app)"
        : "window reload → the chat in the panel live again (first server message in the chat page), code-server + Chromium",
    value: `${share.toFixed(0)} ms after the workbench is back = ${(share / coldLive).toFixed(2)} × cold (${whole.toFixed(0)} ms from the reload command)`,
    goal: "≤ 1 s and ≤ 0.3 × cold (the panel's share)",
    met: share <= 1000 && share <= 0.3 * coldLive,
    detail: `cold start (Stop, then Restart Chat → first message) ${coldLive.toFixed(0)} ms${session}; reload: Reload Window → first message ${whole.toFixed(0)} ms${reloadSession}; ${legs}${kept}; median of ${RUNS}, interleaved, one code-server and one browser`,
  };
}
