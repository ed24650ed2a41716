// Images in the chat (docs/webchat.md: images), in real Chromium against the
// real chat server and a fixture agent that says what it received
// (test/fixtures/feature-agent.ts --images): an image pasted into the composer
// reaches the agent as ACP image content; one dropped on the chat too; a 50 MB
// file or a file that is not an image is refused with a clear message and the
// text stays; an agent that takes no images is never sent one.
// WEBCHAT_SCREENSHOT_DIR=docs saves acp2026-images-light.png and -dark.png.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { CHROMIUM } from "../../harness/code-server.js";
import { chatSuite, openChatPage, typePrompt } from "../../support/chat-browser.js";
import { OUT_DIR, tempDir } from "../../support/processes.js";

const skip = fs.existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}`;
const TIMEOUT = { timeout: 15_000 };
const FEATURE_AGENT = path.join(OUT_DIR, "test", "fixtures", "feature-agent.js");
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;

/** A file as the user's clipboard or file manager hands it to the page: a paste into the composer, or a drop on the chat. */
async function hand(page: Page, how: "paste" | "drop", file: { name: string; type: string; base64?: string; zeros?: number; text?: string }): Promise<void> {
  await page.evaluate(
    ({ how, file }) => {
      const bytes = file.base64 ? Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0)) : file.zeros ? new Uint8Array(file.zeros) : file.text;
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes ?? ""], file.name, { type: file.type }));
      const input = document.getElementById("input")!;
      if (how === "paste") input.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
      else {
        input.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        input.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    { how, file },
  );
}

/** A real PNG of `width`×`height` (a colour gradient), as Chromium's canvas encodes it. */
async function png(page: Page, width: number, height: number): Promise<string> {
  return page.evaluate(
    ({ width, height }) => {
      const canvas = document.createElement("canvas");
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext("2d")!;
      const gradient = context.createLinearGradient(0, 0, width, height);
      gradient.addColorStop(0, "#2f80ed");
      gradient.addColorStop(1, "#f2994a");
      context.fillStyle = gradient;
      context.fillRect(0, 0, width, height);
      return canvas.toDataURL("image/png").split(",")[1]!;
    },
    { width, height },
  );
}

describe("webchat: images pasted or dropped into the composer", { skip }, () => {
  const suite = chatSuite();

  it("sends a pasted and a dropped image as image content, shows them under the composer first, and keeps only how many", async () => {
    const page = await openChatPage(suite.browser, await suite.serve({ command: quote([process.execPath, FEATURE_AGENT, "--images"]) }));
    await page.setViewportSize({ width: 820, height: 520 });
    const image = await png(page, 3, 2);
    await hand(page, "paste", { name: "screenshot.png", type: "image/png", base64: image });
    await hand(page, "drop", { name: "diagram.png", type: "image/png", base64: await png(page, 400, 300) });
    await page.locator("#image-attachments .attachment").nth(1).waitFor(TIMEOUT);
    const names = await page.locator("#image-attachments .attachment-name").allInnerTexts();
    assert.match(names.join(" | "), /^screenshot\.png · \d+ KB \| diagram\.png · \d+ KB$/);
    await page.fill("#input", "what is in these?");
    if (SCREENSHOTS) await screenshots(page, SCREENSHOTS);
    await page.keyboard.press("Enter");
    const answer = page.locator(".message.agent", { hasText: "received what is in these?" });
    await answer.waitFor(TIMEOUT);
    const bytes = Buffer.from(image, "base64").length;
    assert.match(await answer.innerText(), new RegExp(`\\+ image image/png ${bytes} bytes, 3x2 \\+ image image/png \\d+ bytes, 400x300`));
    assert.equal(await page.locator("#image-attachments").isHidden(), true, "sent: no longer attached");
    assert.equal(await page.locator(".message.user .images").innerText(), "with 2 images");
    await page.close();
  });

  it("refuses a 50 MB file and a file that is not an image, saying why; the text stays and nothing is attached", async () => {
    const page = await openChatPage(suite.browser, await suite.serve({ command: quote([process.execPath, FEATURE_AGENT, "--images"]) }));
    await page.fill("#input", "keep this text");
    await hand(page, "paste", { name: "huge.png", type: "image/png", zeros: 50 * 1024 * 1024 });
    await page.locator("#composer-notice", { hasText: "huge.png is 50.0 MB: the chat sends images up to 2.0 MB. Not attached." }).waitFor(TIMEOUT);
    await hand(page, "drop", { name: "notes.png", type: "image/png", text: "not an image at all" });
    await page.locator("#composer-notice", { hasText: "notes.png is not an image the chat can send (PNG, JPEG, GIF or WebP). Not attached." }).waitFor(TIMEOUT);
    assert.equal(await page.locator("#image-attachments").isHidden(), true);
    assert.equal(await page.locator("#input").inputValue(), "keep this text");
    await page.keyboard.press("Enter");
    const answer = page.locator(".message.agent", { hasText: "received keep this text" });
    await answer.waitFor(TIMEOUT);
    assert.doesNotMatch(await answer.innerText(), /image/, "no image went");
    await page.close();
  });

  it("tells that an agent without promptCapabilities.image takes no images, and sends it none", async () => {
    const page = await openChatPage(suite.browser, await suite.serve({ command: quote([process.execPath, FEATURE_AGENT]) }));
    await hand(page, "paste", { name: "screenshot.png", type: "image/png", base64: await png(page, 3, 2) });
    await page.locator("#composer-notice", { hasText: "This agent does not take images" }).waitFor(TIMEOUT);
    assert.equal(await page.locator("#image-attachments").isHidden(), true);
    await typePrompt(page, "plain text");
    const answer = page.locator(".message.agent", { hasText: "received plain text" });
    await answer.waitFor(TIMEOUT);
    assert.doesNotMatch(await answer.innerText(), /image/, "no image went");
    await page.close();
  });
});

async function screenshots(page: Page, dir: string): Promise<void> {
  for (const theme of ["light", "dark"]) {
    await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
    await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
    await page.screenshot({ path: path.join(dir ?? tempDir("webchat-shots-"), `acp2026-images-${theme}.png`) });
  }
}
