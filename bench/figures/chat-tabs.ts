// P16: the chat with TABS tabs open, each its own conversation (the chat's
// agent command as in P11: our conductor's `run` with the editor-context hook
// in front of the bench chat agent), each with a Markdown answer in it.
// Memory: the server's growth and any process between it and the agents,
// per conversation, against P11's goal. Switching: a click on a tab in the
// strip → the next frame (the other tab's conversation laid out and painted),
// timed in the page.

import * as fs from "node:fs";
import * as path from "node:path";
import type { Page } from "playwright-core";
import { STATE_FILE_ENV } from "../../editor-state/src/index.js";
import { conductorRun } from "./chat.js";
import { CHAT_AGENT, descendants, launchBrowser, startChatServer } from "./chat-page.js";
import { RUNS, freshStateFile, median, percentile, residentKb, type Figure } from "./common.js";

const TABS = 8;
const SWITCHES = 40;
/** P11's goal: a conversation's memory over its agent. */
const P11_GOAL_MB = 15;
const SWITCH_GOAL_MS = 50;

interface TabsRound {
  perConversationKb: number;
  serverGrowthKb: number;
  switchesMs: number[];
}

/** Waits until the tab on screen is ready with `answers` answers. */
async function shownReady(page: Page, answers: number): Promise<void> {
  await page.waitForFunction(
    (count) => {
      const shown = document.querySelector(".conversation:not([hidden])");
      return shown?.getAttribute("data-state") === "ready" && shown.querySelectorAll(".message.agent").length >= count;
    },
    answers,
    { timeout: 30_000, polling: 50 },
  );
}

async function ask(page: Page, text: string): Promise<void> {
  const input = page.locator(".conversation:not([hidden]) #input");
  await input.fill(text);
  await input.press("Enter");
}

/** Clicks through the tabs SWITCHES times in the page; each: click → the frame after it has been painted. */
function switchInPage(count: number): Promise<number[]> {
  const tabs = [...document.querySelectorAll<HTMLElement>(".tab-strip [role=tab]")];
  const times: number[] = [];
  const once = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const started = performance.now();
      // The strip is drawn again on each switch: the tab is found by its place.
      document.querySelectorAll<HTMLElement>(".tab-strip [role=tab]")[i % tabs.length]!.click();
      requestAnimationFrame(() =>
        setTimeout(() => {
          times.push(performance.now() - started);
          resolve();
        }, 0),
      );
    });
  return (async () => {
    for (let i = 1; i <= count; i++) await once(i);
    return times;
  })();
}

async function round(dir: string, browser: Awaited<ReturnType<typeof launchBrowser>>): Promise<TabsRound> {
  const server = await startChatServer(conductorRun(dir), dir, { [STATE_FILE_ENV]: freshStateFile(dir) });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const idleKb = residentKb(server.child.pid);
    const page = await browser.newPage();
    await page.setViewportSize({ width: 900, height: 700 });
    await page.goto(server.url);
    for (let tab = 0; tab < TABS; tab++) {
      if (tab > 0) await page.keyboard.press("Alt+Shift+N");
      await shownReady(page, 0);
      await ask(page, `hello ${tab}`);
      await shownReady(page, 1);
      await ask(page, "markdown 200 1");
      await shownReady(page, 2);
    }
    const agentPids = descendants(server.child.pid!).filter(({ command }) => command.includes(path.basename(CHAT_AGENT[1]!)));
    if (agentPids.length !== TABS) throw new Error(`${agentPids.length} agents for ${TABS} tabs`);
    const between = descendants(server.child.pid!)
      .filter(({ command }) => !command.includes(path.basename(CHAT_AGENT[1]!)))
      .reduce((sum, { pid }) => sum + residentKb(pid), 0);
    const serverGrowthKb = residentKb(server.child.pid) - idleKb;
    await page.evaluate(switchInPage, 8); // warm-up: each tab shown once more
    const switchesMs = await page.evaluate(switchInPage, SWITCHES);
    await page.close();
    return { perConversationKb: (serverGrowthKb + between) / TABS, serverGrowthKb, switchesMs };
  } finally {
    await server.stop();
  }
}

export async function tabsFigure(dir: string): Promise<Figure> {
  const projectDir = fs.mkdtempSync(path.join(dir, "tabs-"));
  const browser = await launchBrowser();
  const rounds: TabsRound[] = [];
  try {
    for (let i = 0; i < RUNS; i++) rounds.push(await round(projectDir, browser));
  } finally {
    await browser.close();
  }
  const perConversationMb = median(rounds.map((r) => r.perConversationKb)) / 1024;
  const switches = rounds.flatMap((r) => r.switchesMs);
  const p99 = percentile(switches, 99);
  return {
    id: "P16",
    what: `the chat with ${TABS} tabs open (a conversation each, a Markdown answer in each): memory per conversation; switching tabs`,
    value: `+${perConversationMb.toFixed(1)} MB a conversation over its agent; switch p99 ${p99.toFixed(1)} ms`,
    goal: `≤ ${P11_GOAL_MB} MB a conversation (P11's goal); switch ≤ ${SWITCH_GOAL_MS} ms`,
    met: perConversationMb <= P11_GOAL_MB && p99 <= SWITCH_GOAL_MS,
    detail: `VmRSS, median of ${rounds.length} runs: the server grows ${(median(rounds.map((r) => r.serverGrowthKb)) / 1024).toFixed(1)} MB for ${TABS} conversations (the conductor with the hook in it), over the ${TABS} agents' own; switch = a click on a tab → the next frame painted, timed in the page, ${switches.length} switches: p50 ${median(switches).toFixed(1)} ms, max ${Math.max(...switches).toFixed(1)} ms`,
  };
}
