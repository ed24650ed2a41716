// `@` mentions in the chat page (issue 22, item 3), in real Chromium against
// the real chat server and a fixture agent that records every prompt array
// (test/fixtures/mention-agent.ts): a file chosen with the keyboard reaches
// the agent as a resource_link, or as an embedded resource when the agent
// takes embedded context; a line range travels too; files dropped on the
// input become mentions; paths outside the project are refused.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { quote } from "shell-quote";
import { CHROMIUM, launchBrowser } from "./harness/code-server.js";
import { OUT_DIR, eventually, tempDir } from "./support/processes.js";
import { startChatServer, type ChatServer } from "./support/webchat-server.js";
import { MAX_LISTED_FILES, ProjectIndex } from "../webchat/src/project-index.js";

const skip = fs.existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}`;
const TIMEOUT = { timeout: 10_000 };
const MENTION_AGENT = path.join(OUT_DIR, "test", "fixtures", "mention-agent.js");
const MAIN_RS = 'fn main() {\n    let a = 1;\n    println!("{a}");\n}\n';

interface Block {
  type: string;
  text?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text?: string };
}

describe("webchat @ mentions (issue 22, item 3)", { skip }, () => {
  let browser: Browser;
  const servers: ChatServer[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await Promise.all([browser?.close(), ...servers.map((server) => server.stop())]);
  });

  /** A project with a few files (and one beside it, outside), its server, and where the agent records prompts. */
  async function serve(flags: string[] = []): Promise<{ server: ChatServer; prompts: () => Block[][] }> {
    const parent = tempDir("webchat-mentions-");
    const projectDir = path.join(parent, "project");
    fs.mkdirSync(path.join(projectDir, "src"), { recursive: true });
    fs.mkdirSync(path.join(projectDir, "node_modules", "dep"), { recursive: true });
    fs.writeFileSync(path.join(projectDir, "src", "main.rs"), MAIN_RS);
    fs.writeFileSync(path.join(projectDir, "src", "lib.rs"), "pub fn lib() {}\n");
    fs.writeFileSync(path.join(projectDir, "README.md"), "# project\n");
    fs.writeFileSync(path.join(projectDir, "node_modules", "dep", "main.js"), "skipped\n");
    fs.writeFileSync(path.join(parent, "secret.txt"), "outside\n");
    const out = path.join(parent, "prompts.jsonl");
    const server = await startChatServer({ command: quote([process.execPath, MENTION_AGENT, "--out", out, ...flags]), projectDir });
    servers.push(server);
    const prompts = () =>
      fs.existsSync(out)
        ? fs
            .readFileSync(out, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Block[])
        : [];
    return { server, prompts };
  }

  async function openChat(server: ChatServer): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(server.url.toString());
    await page.waitForSelector("body[data-state=ready]", TIMEOUT);
    return page;
  }

  async function lastPrompt(prompts: () => Block[][], count: number): Promise<Block[]> {
    await eventually(() => prompts().length >= count, 10_000, `prompt ${count} at the agent`);
    return prompts()[count - 1]!;
  }

  it("completes @ma to src/main.rs with the keyboard and sends it as a resource_link", async () => {
    const { server, prompts } = await serve();
    const page = await openChat(server);
    await page.click("#input");
    await page.keyboard.type("explain @ma");
    await page.waitForSelector("#slash-menu li.selected:has-text('@src/main.rs')", TIMEOUT);
    const offered = await page.locator("#slash-menu li").allInnerTexts();
    assert.ok(!offered.some((each) => each.includes("node_modules")), `node_modules is not offered: ${offered.join(", ")}`);
    await page.keyboard.press("Enter"); // takes the file
    assert.equal(await page.inputValue("#input"), "explain @src/main.rs ");
    await page.keyboard.type("please");
    await page.keyboard.press("Enter"); // sends
    const prompt = await lastPrompt(prompts, 1);
    assert.deepEqual(prompt[0], { type: "text", text: "explain @src/main.rs please" });
    assert.equal(prompt.length, 2, JSON.stringify(prompt));
    assert.equal(prompt[1]!.type, "resource_link");
    assert.equal(prompt[1]!.uri, pathToFileURL(path.join(server.projectDir, "src", "main.rs")).href);
    assert.equal(prompt[1]!.name, "main.rs");
    await page.close();
  });

  it("embeds the file's text, and a selection's lines, when the agent takes embedded context", async () => {
    const { server, prompts } = await serve(["--embedded"]);
    const page = await openChat(server);
    await page.fill("#input", "look at @src/main.rs and @src/main.rs:2-3");
    await page.keyboard.press("Escape"); // closes the menu the mention opened
    await page.click("#send");
    const prompt = await lastPrompt(prompts, 1);
    const uri = pathToFileURL(path.join(server.projectDir, "src", "main.rs")).href;
    assert.deepEqual(prompt.slice(1), [
      { type: "resource", resource: { uri, text: MAIN_RS, mimeType: "text/plain" } },
      { type: "resource", resource: { uri: `${uri}#L2-3`, text: '    let a = 1;\n    println!("{a}");', mimeType: "text/plain" } },
    ]);
    await page.close();
  });

  it("turns a drop of files from the explorer into mentions, refusing files outside the project", async () => {
    const { server, prompts } = await serve(["--embedded"]);
    const page = await openChat(server);
    const inside = pathToFileURL(path.join(server.projectDir, "src", "lib.rs")).href;
    const outside = pathToFileURL(path.join(server.projectDir, "..", "secret.txt")).href;
    await page.evaluate(
      ([list]) => {
        const data = new DataTransfer();
        data.setData("text/uri-list", list!);
        document.querySelector("#input")!.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      },
      [`${inside}\r\n${outside}`],
    );
    assert.equal(await page.inputValue("#input"), "@src/lib.rs ");
    assert.match(await page.innerText("#composer-notice"), /secret\.txt/);
    // A mention typed by hand that leaves the project is sent as text only.
    await page.fill("#input", "@src/lib.rs and @../secret.txt");
    await page.click("#send");
    const prompt = await lastPrompt(prompts, 1);
    assert.equal(prompt.length, 2, JSON.stringify(prompt));
    assert.equal(prompt[1]!.resource?.text, "pub fn lib() {}\n");
    assert.ok(!JSON.stringify(prompt).includes("outside\\n"), "the file outside the project is not sent");
    await page.close();
  });
});

describe("the project's files for @ (webchat/src/project-index.ts)", () => {
  it("lists a git work tree with git, so .gitignore is honoured", async () => {
    const dir = tempDir("project-index-git-");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    fs.writeFileSync(path.join(dir, ".gitignore"), "build/\n");
    fs.mkdirSync(path.join(dir, "build"));
    fs.writeFileSync(path.join(dir, "build", "out.txt"), "generated\n");
    fs.writeFileSync(path.join(dir, "kept.txt"), "kept\n");
    const { files, truncated } = await new ProjectIndex(dir).list();
    assert.deepEqual([...files].sort(), [".gitignore", "kept.txt"]);
    assert.equal(truncated, false);
  });

  it("walks any other folder, bounded, without node_modules", async () => {
    const dir = tempDir("project-index-walk-");
    fs.mkdirSync(path.join(dir, "many"));
    fs.mkdirSync(path.join(dir, "node_modules"));
    fs.writeFileSync(path.join(dir, "node_modules", "dep.js"), "");
    for (let index = 0; index < MAX_LISTED_FILES + 10; index++) fs.writeFileSync(path.join(dir, "many", `f${index}`), "");
    const { files, truncated } = await new ProjectIndex(dir).list();
    assert.equal(files.length, MAX_LISTED_FILES);
    assert.equal(truncated, true);
    assert.ok(!files.some((file) => file.startsWith("node_modules")));
  });
});
