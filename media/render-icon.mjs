// Renders media/icon.svg (the marketplace icon: media/symposium.svg, the view's
// themed outline, on a solid tile) to media/icon.png, 128×128, in Chromium.
// Run after changing the SVG: `node media/render-icon.mjs`.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block}</style>${readFileSync(here("icon.svg"), "utf8")}`);
  await page.locator("svg").screenshot({ path: here("icon.png"), omitBackground: true });
} finally {
  await browser.close();
}
