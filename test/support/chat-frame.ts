// The built-in chat in a frame of VS Code's page (the panel's view, an editor tab), for the
// end-to-end tests: its frames, its transcript, and a question typed into it as a user does.

import * as path from "node:path";
import type { Frame, Page } from "playwright-core";
import { tempDir } from "./processes.js";

/** Every chat frame on the page (the view's, an editor tab's): the frames whose address carries the chat's secret. */
export function chatFrames(page: Page): Frame[] {
  return page.frames().filter((frame) => /[?&]token=/.test(frame.url()));
}

/** The chat's transcript as text; empty while the frame is not there (reloading, closed). */
export function chatTranscript(frame: Frame): Promise<string> {
  return frame
    .locator("#transcript")
    .innerText()
    .catch(() => "");
}

/**
 * Once the agent has started (the status says Ready), types `text` into the composer and sends
 * it with Enter. When the composer cannot be typed into, a screenshot of the page is kept and
 * its path written to stderr before the error is thrown.
 */
export async function askInChat(frame: Frame, text: string): Promise<void> {
  await frame.locator("#status", { hasText: /Ready/ }).waitFor({ timeout: 30_000 });
  const input = frame.locator("#input");
  await input.fill(text).catch(async (error: unknown) => {
    const shot = path.join(tempDir("symposium-chat-shot-"), "failed.png");
    await frame
      .page()
      .screenshot({ path: shot })
      .catch(() => undefined);
    process.stderr.write(`screenshot of the failure: ${shot}\n`);
    throw error;
  });
  await input.press("Enter");
}
