// `@` mentions in the chat page, in real Chromium against
// the real chat server and a fixture agent that records every prompt array
// (test/fixtures/mention-agent.ts): a file chosen with the keyboard reaches
// the agent as a resource_link, or as an embedded resource when the agent
// takes embedded context; a line range travels too; files dropped on the
// input become mentions; paths outside the project are refused.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { quote } from "shell-quote";
import { chromiumSkipReason } from "../../harness/code-server.js";
import { chatSuite, openChatPage } from "../../support/chat-browser.js";
import { OUT_DIR, eventually, tempDir } from "../../support/processes.js";
import type { ChatServer } from "../../support/webchat-server.js";
import { MAX_LISTED_FILES, ProjectIndex } from "../../../webchat/src/project-index.js";
import { mentionText, parseMentions } from "../../../webchat/page/mention-syntax.js";
import { openChatInFrame } from "../../support/chat-in-frame.js";

const skip = chromiumSkipReason();
const TIMEOUT = { timeout: 10_000 };
const MENTION_AGENT = path.join(OUT_DIR, "test", "fixtures", "mention-agent.js");
const MAIN_RS = 'fn main() {\n    let a = 1;\n    println!("{a}");\n}\n';
const NOTES = "one\ntwo\nthree\n";
/** Odd characters a file name may hold on Linux, macOS and Windows alike. */
const ODD = "50% [draft] #1 é;&=+,.txt";
const SCREENSHOTS = process.env.WEBCHAT_SCREENSHOT_DIR;
/** What RFC 3986 allows in a file: URI's path: anything else must be percent-encoded. */
const URI_PATH = /^file:\/\/\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*(#L\d+(-\d+)?)?$/;

interface Block {
  type: string;
  text?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text?: string };
}

describe("webchat @ mentions", { skip }, () => {
  const suite = chatSuite();

  /** A project with a few files (and one beside it, outside), its server, and where the agent records prompts. */
  async function serve(flags: string[] = []): Promise<{ server: ChatServer; prompts: () => Block[][] }> {
    const parent = tempDir("webchat-mentions-");
    const projectDir = path.join(parent, "project");
    fs.mkdirSync(path.join(projectDir, "src"), { recursive: true });
    fs.mkdirSync(path.join(projectDir, "node_modules", "dep"), { recursive: true });
    fs.writeFileSync(path.join(projectDir, "src", "main.rs"), MAIN_RS);
    fs.writeFileSync(path.join(projectDir, "src", "lib.rs"), "pub fn lib() {}\n");
    fs.writeFileSync(path.join(projectDir, "README.md"), "# project\n");
    fs.mkdirSync(path.join(projectDir, "docs"));
    fs.writeFileSync(path.join(projectDir, "docs", "my notes.md"), NOTES);
    fs.writeFileSync(path.join(projectDir, "docs", ODD), "odd\n");
    fs.writeFileSync(path.join(projectDir, "node_modules", "dep", "main.js"), "skipped\n");
    fs.writeFileSync(path.join(parent, "secret.txt"), "outside\n");
    const out = path.join(parent, "prompts.jsonl");
    const server = await suite.serve({ command: quote([process.execPath, MENTION_AGENT, "--out", out, ...flags]), projectDir });
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

  const openChat = (server: ChatServer): Promise<Page> => openChatPage(suite.browser, server, {}, TIMEOUT.timeout);

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

  it("completes, sends and shows paths with spaces and odd characters: quoted mentions, percent-encoded file: URIs", async () => {
    const { server, prompts } = await serve();
    const page = await openChat(server);
    await page.setViewportSize({ width: 820, height: 420 });
    await page.click("#input");
    await page.keyboard.type("compare @notes");
    await page.waitForSelector(`#slash-menu li.selected:has-text('@"docs/my notes.md"')`, TIMEOUT);
    await page.keyboard.press("Enter"); // takes the file, quoted
    assert.equal(await page.inputValue("#input"), 'compare @"docs/my notes.md" ');
    // Typing the quote by hand completes too: the query is what follows it, spaces included.
    await page.keyboard.type('with @"50% [dr');
    await page.waitForSelector(`#slash-menu li.selected:has-text('${ODD}')`, TIMEOUT);
    if (SCREENSHOTS) await screenshots(page, "mentions-menu");
    await page.keyboard.press("Tab");
    assert.equal(await page.inputValue("#input"), `compare @"docs/my notes.md" with @"docs/${ODD}" `);
    await page.keyboard.press("Enter"); // sends
    const prompt = await lastPrompt(prompts, 1);
    assert.equal(prompt.length, 3, JSON.stringify(prompt));
    const files = [path.join(server.projectDir, "docs", "my notes.md"), path.join(server.projectDir, "docs", ODD)];
    prompt.slice(1).forEach((block, index) => {
      assert.equal(block.type, "resource_link");
      assert.equal(block.uri, pathToFileURL(files[index]!).href);
      assert.match(block.uri, URI_PATH, "every character outside RFC 3986's path set is percent-encoded");
      assert.equal(fileURLToPath(block.uri), files[index], "the URI names the file exactly");
      assert.equal(block.name, path.basename(files[index]!));
    });
    assert.match(prompt[1]!.uri!, /my%20notes\.md$/);
    // Shown in the user's message as mentions, the path in the tooltip.
    await page.waitForSelector(".message.user:not(.pending)", TIMEOUT);
    assert.deepEqual(await page.locator(".message.user .mention").allInnerTexts(), ['@"docs/my notes.md"', `@"docs/${ODD}"`]);
    assert.equal(await page.locator(".message.user .mention").first().getAttribute("title"), "docs/my notes.md");
    if (SCREENSHOTS) await screenshots(page, "mentions");
    await page.close();
  });

  it("drops and the panel's Add Selection mention paths with spaces quoted, lines included", async () => {
    const { server, prompts } = await serve(["--embedded"]);
    const { page, frame, post, close } = await openChatInFrame(suite.browser, server.url.toString());
    const notes = path.join(server.projectDir, "docs", "my notes.md");
    await frame.evaluate(
      ([list]) => {
        const data = new DataTransfer();
        data.setData("text/uri-list", list!);
        document.querySelector("#input")!.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      },
      [pathToFileURL(notes).href],
    );
    assert.equal(await frame.inputValue("#input"), '@"docs/my notes.md" ');
    assert.equal(await frame.locator("#composer-notice").isHidden(), true, "nothing refused");
    await frame.fill("#input", "");
    // The panel sends the path and lines (extension/src/panel/selection-mention.ts): the page writes the mention, the path quoted.
    await post({ type: "symposium/mention", path: "docs/my notes.md", startLine: 2, endLine: 3 });
    await frame.waitForFunction(() => (document.getElementById("input") as HTMLTextAreaElement).value !== "", undefined, TIMEOUT);
    assert.equal(await frame.inputValue("#input"), '@"docs/my notes.md":2-3 ');
    await frame.press("#input", "Escape"); // the mention opened the file menu
    await frame.click("#send");
    const prompt = await lastPrompt(prompts, 1);
    assert.deepEqual(prompt.slice(1), [
      { type: "resource", resource: { uri: `${pathToFileURL(notes).href}#L2-3`, text: "two\nthree", mimeType: "text/plain" } },
    ]);
    await page.waitForTimeout(0);
    await close();
  });

  it("Reply in chat on a walkthrough's comment: the mention of its place and the comment quoted, the caret under them", async () => {
    const { server } = await serve(["--embedded"]);
    const { frame, post, close } = await openChatInFrame(suite.browser, server.url.toString());
    await frame.fill("#input", "About this");
    await post({ type: "symposium/mention", path: "docs/my notes.md", startLine: 2, endLine: 3, inReplyTo: "I was unsure here.\nCheck the bound." });
    await frame.waitForFunction(() => (document.getElementById("input") as HTMLTextAreaElement).value.includes("reply"), undefined, TIMEOUT);
    assert.equal(
      await frame.inputValue("#input"),
      'About this\nIn reply to your comment at @"docs/my notes.md":2-3:\n> I was unsure here.\n> Check the bound.\n',
    );
    assert.equal(
      await frame.evaluate(() => (document.getElementById("input") as HTMLTextAreaElement).selectionStart),
      (await frame.inputValue("#input")).length,
      "the caret is under the quote",
    );
    await close();
  });

  /** Light and dark pictures of the page, for docs/. */
  async function screenshots(page: Page, name: string): Promise<void> {
    for (const theme of ["light", "dark"]) {
      await page.evaluate((chosen) => window.postMessage({ type: "symposium/theme", theme: chosen }, "*"), theme);
      await page.waitForFunction((chosen) => document.body.dataset.theme === chosen, theme, TIMEOUT);
      await page.screenshot({ path: path.join(SCREENSHOTS!, `webchat-${name}-${theme}.png`) });
    }
  }
});

describe("mention syntax (webchat/page/mention-syntax.ts)", () => {
  it("reads back every path it writes, quoting only when needed", () => {
    const paths = ["src/main.rs", "docs/my notes.md", "a:b.txt", "x@y/z", 'say "hi".md', "back\\slash dir\\f", "tab\there", "ends.", "f(1)", ODD, "é/ü ö.rs"];
    for (const file of paths) {
      for (const [start, end] of [
        [undefined, undefined],
        [3, 3],
        [2, 9],
      ] as const) {
        const text = `see ${mentionText(file, start, end)}, then`;
        const [mention, ...rest] = parseMentions(text);
        assert.deepEqual(rest, [], text);
        assert.equal(mention?.path, file, text);
        assert.equal(mention?.start, start, text);
        assert.equal(mention?.end, end, text);
        assert.equal(text.slice(mention.index, mention.index + mention.length), mentionText(file, start, end));
      }
    }
    assert.equal(mentionText("src/main.rs", 2, 3), "@src/main.rs:2-3", "plain paths stay as before");
    assert.equal(mentionText("docs/my notes.md"), '@"docs/my notes.md"');
    assert.deepEqual(
      parseMentions("see @src/main.rs. And @src/lib.rs:2-3, (@README.md)").map(({ path: file, start }) => [file, start]),
      [
        ["src/main.rs", undefined],
        ["src/lib.rs", 2],
      ],
      "sentence punctuation after a plain mention is the sentence's",
    );
    assert.deepEqual(
      parseMentions('mail a@b.c, @"unterminated and @src/x.rs').map((each) => each.path),
      ["src/x.rs"],
      "an @ inside a word and an unterminated quote are no mentions",
    );
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
