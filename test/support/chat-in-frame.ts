// The chat page inside a parent frame, as VS Code's panel holds it, for
// tests in Chromium: the parent (a page served from another loopback origin)
// speaks first, as the panel does, then records every request the chat
// posts to it (bridge.ts) and can post the panel's messages to the chat.

import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Frame, Page } from "playwright-core";

const PARENT_PAGE = `<!doctype html><body style="margin:0"><iframe id="chat" style="border:0;width:100vw;height:100vh"></iframe><script>
  window.requests = [];
  addEventListener("message", (event) => { if (event.data && event.data.type === "symposium/request") window.requests.push(event.data.request); });
</script></body>`;

export interface ChatInFrame {
  page: Page;
  frame: Frame;
  /** The requests the chat posted to its parent (`{type: "symposium/request", request}`'s request), in order. */
  requests: () => Promise<Array<Record<string, unknown>>>;
  /** Posts a message to the chat as the panel does. */
  post: (message: Record<string, unknown>) => Promise<void>;
  /** Closes the page and the parent's server. */
  close: () => Promise<void>;
}

export async function openChatInFrame(browser: Browser, chatUrl: string, timeout = 10_000): Promise<ChatInFrame> {
  const server = http.createServer((_request, response) => response.writeHead(200, { "Content-Type": "text/html" }).end(PARENT_PAGE));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const page = await browser.newPage();
  const close = async () => {
    await page.close();
    server.closeAllConnections(); // Chromium keeps its connection alive; close would wait for it
    await new Promise((resolve) => server.close(resolve));
  };
  try {
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.evaluate((url) => (document.getElementById("chat") as HTMLIFrameElement).setAttribute("src", url), chatUrl);
    const frame = await (await page.waitForSelector("#chat", { timeout })).contentFrame();
    if (!frame) throw new Error("the chat's frame did not load");
    await frame.waitForSelector("body[data-state=ready]", { timeout });
    const post = (message: Record<string, unknown>) =>
      page.evaluate((data) => (document.getElementById("chat") as HTMLIFrameElement).contentWindow!.postMessage(data, "*"), message);
    await post({ type: "symposium/chords", chords: [] }); // the panel speaks first: the chat's requests go to its origin
    return {
      page,
      frame,
      requests: () => page.evaluate(() => (window as unknown as { requests: Array<Record<string, unknown>> }).requests),
      post,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
