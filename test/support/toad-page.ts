// Toad's page in Chromium, driven like a user: Toad draws its screen on a
// canvas (xterm.js), so the page is watched through the terminal output its
// websocket brings, which is what xterm draws. The page may be a frame (the
// panel's, in VS Code).

import type { Frame, Page } from "playwright-core";

/** Toad's page: a page of its own, or the chat's frame in the panel. */
export type ToadPage = Page | Frame;

/**
 * An init script: notes when Toad's app last sent terminal output and keeps
 * that output as text (window.terminalText), escape sequences and all.
 */
export const watchTerminalOutput = {
  content: `window.lastOutput = Date.now();
    window.terminalText = "";
    const decoder = new TextDecoder();
    window.WebSocket = class extends window.WebSocket {
      constructor(url, protocols) {
        super(url, protocols);
        this.addEventListener("message", (event) => {
          window.lastOutput = Date.now();
          if (typeof event.data !== "string") window.terminalText += decoder.decode(event.data, { stream: true });
        });
      }
    };`,
};

/** Waits until Toad's screen has not changed for 300 ms (its cursor blinks every 500 ms): it takes keys once drawn. */
export async function settled(page: ToadPage): Promise<void> {
  await page.waitForFunction("Date.now() - window.lastOutput > 300", undefined, { timeout: 30_000, polling: 100 });
}

/**
 * Types into Toad's prompt like a user, key by key (or with `paste`, in one
 * input event, so xterm sends it as one chunk), and sends it once Toad has
 * drawn all of it (an Enter that overtakes the keys sends what arrived so far).
 * Keys go to xterm's own input: a click would also move Toad's focus to
 * whatever it hits.
 */
export async function typeInto(page: ToadPage, text: string, { paste = false } = {}): Promise<void> {
  const keyboard = ("keyboard" in page ? page : page.page()).keyboard;
  await settled(page);
  await page.locator(".xterm-helper-textarea").focus();
  const drawnBefore = await page.evaluate<number>("window.terminalText.length");
  if (paste) await keyboard.insertText(text);
  else await keyboard.type(text, { delay: 20 });
  await waitForScreenText(page, text, 30_000, drawnBefore);
  await settled(page);
  await keyboard.press("Enter");
}

// CSI (colours, cursor moves), OSC (titles, links, ended by BEL or ST), and two-character escapes.
// eslint-disable-next-line no-control-regex -- escape sequences are made of control characters
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** The text Toad drew (from output offset `from` on), escape sequences removed: each run of text as it went to the screen. */
export async function terminalText(page: ToadPage, from = 0): Promise<string> {
  return (await page.evaluate<string>(`window.terminalText.slice(${from})`)).replace(ESCAPES, "");
}

/** Text as the user reads it: runs of white space (padding, a wrapped line) count as one space. */
export async function screenText(page: ToadPage, from = 0): Promise<string> {
  return (await terminalText(page, from)).replace(/\s+/g, " ");
}

/** Waits until Toad has drawn `needle` (after output offset `from`; white space squeezed as screenText does); the error shows what it drew. */
export async function waitForScreenText(page: ToadPage, needle: string, timeoutMs = 30_000, from = 0): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await screenText(page, from)).includes(needle)) {
    if (Date.now() > deadline) throw new Error(`Toad's page does not show ${JSON.stringify(needle)}; it drew: ${(await screenText(page, from)).slice(-3_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
