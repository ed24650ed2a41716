// The built-in chat's page in real Chromium, opened and typed into as a user
// does, for the tests that drive it (and bench/figures alike).

import { after, before } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../harness/code-server.js";
import { startChatServer, type ChatServer, type ChatServerOptions } from "./webchat-server.js";

/** Where a chat server serves its page: its URL, secret included. */
export interface ChatAddress {
  url: URL | string;
}

/** Loads the chat (with `query` added to its address) in `page` and waits until it is ready for a prompt. */
export async function loadChat(page: Page, server: ChatAddress, query: Record<string, string> = {}, timeoutMs = 10_000): Promise<Page> {
  const url = new URL(server.url);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  await page.goto(url.toString());
  await page.waitForSelector("body[data-state=ready]", { timeout: timeoutMs });
  return page;
}

/** A new page on the chat, ready for a prompt. */
export async function openChatPage(browser: Browser, server: ChatAddress, query: Record<string, string> = {}, timeoutMs = 10_000): Promise<Page> {
  return loadChat(await browser.newPage(), server, query, timeoutMs);
}

/** What the server sends a page, held back on demand: a slow connection, made exact. */
export interface HeldServerFrames {
  /** From now on the page receives nothing (its own frames still reach the server). */
  hold(): void;
  /** Delivers what was held, in order, and lets frames through again. */
  release(): void;
}

/** Routes `page`'s chat websocket through the test (before the page loads the chat), so `hold` can delay what the server sends it. */
export async function holdableServerFrames(page: Page): Promise<HeldServerFrames> {
  let held: Array<() => void> | undefined;
  await page.routeWebSocket(/\/ws\?/, (socket) => {
    const server = socket.connectToServer(); // the page's frames go on to the server untouched
    server.onMessage((frame) => (held ? held.push(() => socket.send(frame)) : socket.send(frame)));
  });
  return {
    hold: () => {
      held ??= [];
    },
    release: () => {
      const frames = held ?? [];
      held = undefined;
      for (const deliver of frames) deliver();
    },
  };
}

/** Types a prompt into the composer and sends it with Enter. */
export async function typePrompt(page: Page, text: string): Promise<void> {
  await page.fill("#input", text);
  await page.keyboard.press("Enter");
}

/** A describe block's Chromium and the chat servers its tests start. */
export interface ChatSuite {
  /** Launched before the block's first test. */
  readonly browser: Browser;
  /** Starts a chat server, stopped after the block. */
  serve(options?: ChatServerOptions): Promise<ChatServer>;
}

/** Called inside a describe: one Chromium for its tests, closed after them with every server `serve` started. */
export function chatSuite(): ChatSuite {
  let browser: Browser | undefined;
  const servers: ChatServer[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await Promise.all([browser?.close(), ...servers.map((server) => server.stop())]);
  });
  return {
    get browser(): Browser {
      if (!browser) throw new Error("the suite's Chromium is launched in its before hook: use it inside a test");
      return browser;
    },
    async serve(options?: ChatServerOptions): Promise<ChatServer> {
      const server = await startChatServer(options);
      servers.push(server);
      return server;
    },
  };
}
