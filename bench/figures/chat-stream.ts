// P12: the chat page under a long streamed answer. The bench chat agent sends
// CHUNKS chunks of Markdown into one message, one every EVERY_MS ms, each
// stamped with its send time; a probe in the page notes when each chunk
// arrives and when the render that shows it ends, and how long that render
// took (the page reports it in its "rendered" event).

import * as fs from "node:fs";
import * as path from "node:path";
import type { Page } from "playwright-core";
import { CHAT_AGENT, launchBrowser, openChat, pageProbe, startChatServer, typePrompt, type PageProbe } from "./chat-page.js";
import { RUNS, cpuMs, median, percentile, type Figure } from "./common.js";

const CHUNKS = 2_000;
const EVERY_MS = 2;

async function streamOnce(page: Page): Promise<{ lags: number[]; arrivals: number[]; inPage: number[]; perChunkMs: number[]; renders: number }> {
  await typePrompt(page, `markdown ${CHUNKS} ${EVERY_MS}`);
  await page.waitForFunction(
    (count) => {
      const probe = (window as unknown as { benchProbe: PageProbe }).benchProbe;
      return probe.chunks.length === count && probe.pending.length === 0 && document.body.dataset.state === "ready";
    },
    CHUNKS,
    { timeout: 60_000, polling: 100 },
  );
  const chunks = await page.evaluate(() => (window as unknown as { benchProbe: PageProbe }).benchProbe.chunks);
  if (chunks.length !== CHUNKS) throw new Error(`the page got ${chunks.length} of ${CHUNKS} chunks`);
  return {
    lags: chunks.map((c) => c.shownAt - c.sentAt),
    arrivals: chunks.map((c) => c.arrivedAt - c.sentAt),
    inPage: chunks.map((c) => c.shownAt - c.arrivedAt),
    perChunkMs: chunks.map((c) => c.renderMs),
    renders: new Set(chunks.map((c) => c.shownAt)).size,
  };
}

export async function streamFigure(dir: string): Promise<Figure> {
  const server = await startChatServer(CHAT_AGENT, fs.mkdtempSync(path.join(dir, "stream-")));
  const browser = await launchBrowser();
  const runs: Array<{
    maxLag: number;
    p99Lag: number;
    maxArrival: number;
    maxInPage: number;
    serverCpuUs: number;
    p99Render: number;
    renders: number;
    maxRender: number;
  }> = [];
  try {
    for (let i = -1; i < RUNS; i++) {
      const page = await openChat(browser, server.url, pageProbe);
      const cpuBefore = cpuMs(server.child.pid);
      const { lags, arrivals, inPage, perChunkMs, renders } = await streamOnce(page);
      const serverCpuUs = ((cpuMs(server.child.pid) - cpuBefore) * 1000) / CHUNKS;
      await page.close();
      if (i < 0) continue; // warm-up
      runs.push({
        maxLag: Math.max(...lags),
        p99Lag: percentile(lags, 99),
        maxArrival: Math.max(...arrivals),
        maxInPage: Math.max(...inPage),
        serverCpuUs,
        p99Render: percentile(perChunkMs, 99),
        renders,
        maxRender: Math.max(...perChunkMs),
      });
    }
  } finally {
    await Promise.all([browser.close(), server.stop()]);
  }
  const maxLag = median(runs.map((r) => r.maxLag));
  const p99Render = median(runs.map((r) => r.p99Render));
  return {
    id: "P12",
    what: `chat page: ${CHUNKS.toLocaleString("en")} streamed chunks of Markdown into one message (one every ${EVERY_MS} ms)`,
    value: `latest chunk ${maxLag.toFixed(1)} ms behind, render p99 ${p99Render.toFixed(2)} ms a chunk`,
    goal: "no chunk > 50 ms behind; render p99 ≤ 4 ms",
    met: maxLag <= 50 && p99Render <= 4,
    detail: `median of ${runs.length} runs; lag = shown in the DOM − sent by the agent (wall clocks of both processes), p99 ${median(runs.map((r) => r.p99Lag)).toFixed(1)} ms, worst run ${Math.max(...runs.map((r) => r.maxLag)).toFixed(1)} ms, reaching the page (agent → server → websocket) at most ${median(runs.map((r) => r.maxArrival)).toFixed(1)} ms, in the page (arrived → shown) at most ${median(runs.map((r) => r.maxInPage)).toFixed(1)} ms; the server's CPU ${median(runs.map((r) => r.serverCpuUs)).toFixed(0)} µs a chunk; render = performance.now() around the page's Markdown render, each chunk counted with the render that showed it; ${median(runs.map((r) => r.renders)).toFixed(0)} renders a run, longest ${median(runs.map((r) => r.maxRender)).toFixed(1)} ms`,
  };
}
