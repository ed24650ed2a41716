// The input: Enter sends, Shift+Enter breaks the line (Escape, anywhere on
// the page, cancels the turn: main.ts); typing `/` offers the agent's slash commands (arrows to choose, Tab
// or Enter to take one). A prompt over the server's message limit is kept
// in the input with a notice instead of being sent (the server would close
// the connection). Typing `@` offers the project's files (mentions.ts), and
// files dropped on the page become `@path` mentions.

import { MAX_PAGE_MESSAGE_BYTES, type SlashCommand } from "./protocol.js";
import { h, WHOLE_PAGE, type PageScope } from "./dom.js";
import { droppedPaths, matchFiles, mentionAt } from "./mentions.js";
import { mentionText } from "./mention-syntax.js";

export interface ComposerHooks {
  /** Sends `text`; null when sent, else why not (shown above the input, which keeps the text). */
  send(text: string): string | null;
  /** Asks the server for the project's files (the answer comes to setFiles). */
  listFiles(): void;
}

/** One choice of the menu: a command or a file. */
interface Choice {
  label: string;
  description: string;
  take(): void;
}

export class Composer {
  readonly input = h("textarea", { id: "input", rows: "2", placeholder: PLACEHOLDER, "aria-label": "Message" });
  readonly menu = h("ul", { id: "slash-menu", role: "listbox", hidden: "" });
  /** Why the last Enter did not send (the prompt is too large, the agent is not ready); main.ts places it above the input. */
  readonly notice = h("div", { id: "composer-notice", class: "error", role: "alert", hidden: "" });
  private commands: SlashCommand[] = [];
  private matches: Choice[] = [];
  private selected = 0;
  private files: string[] | null = null;
  /** Where the chat's project is (from the server's hello): drops outside it are refused. */
  projectDir = "";

  constructor(
    private readonly hooks: ComposerHooks,
    scope: PageScope = WHOLE_PAGE,
  ) {
    this.input.addEventListener("keydown", (event) => this.onKey(event));
    this.input.addEventListener("input", () => {
      this.updateMenu();
      this.showNotice(null);
    });
    // Files dropped anywhere on the page land in the composer (in VS Code, with Shift held: docs/webchat.md).
    const listening = { signal: scope.signal };
    document.addEventListener(
      "dragover",
      (event) => {
        if (scope.active() && hasFiles(event)) event.preventDefault(); // lets the drop happen
      },
      listening,
    );
    document.addEventListener("drop", (event) => scope.active() && this.onDrop(event), listening);
  }

  /** The project's files (the server's answer to listFiles). */
  setFiles(files: string[]): void {
    this.files = files;
    this.updateMenu();
  }

  setCommands(commands: SlashCommand[]): void {
    this.commands = commands;
    // "/" is promised only when the agent has commands to offer.
    this.input.placeholder = commands.length > 0 ? `${PLACEHOLDER.slice(0, -1)}, / for commands)` : PLACEHOLDER;
    this.updateMenu();
  }

  submit(): void {
    const text = this.input.value;
    if (text.trim() === "") return;
    this.showNotice(tooLarge(text));
    if (!this.notice.hidden) return;
    const refused = this.hooks.send(text);
    if (refused === null) {
      this.input.value = "";
      this.updateMenu();
    } else this.showNotice(refused, "info");
  }

  private onKey(event: KeyboardEvent): void {
    if (event.isComposing) return;
    const menuOpen = this.matches.length > 0;
    if (menuOpen && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      this.selected = (this.selected + (event.key === "ArrowDown" ? 1 : this.matches.length - 1)) % this.matches.length;
      this.renderMenu();
    } else if (menuOpen && (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey && this.enterTakes()))) {
      event.preventDefault();
      this.matches[this.selected]!.take();
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      this.submit();
    } else if (event.key === "Escape" && menuOpen) {
      event.preventDefault(); // the page's Escape (cancel the turn) waits for the next press
      this.close();
    }
  }

  /** An "error" is the text's own fault (too large, a file outside the project); "info" says why it waits (the agent is not ready). */
  showNotice(message: string | null, kind: "error" | "info" = "error"): void {
    this.notice.textContent = message ?? "";
    this.notice.hidden = message === null;
    this.notice.className = kind;
    this.input.toggleAttribute("aria-invalid", message !== null && kind === "error");
  }

  /** Enter takes a file being mentioned, or a command while only its name is typed. */
  private enterTakes(): boolean {
    return this.mention() !== null || !this.input.value.includes(" ");
  }

  private take(command: SlashCommand): void {
    this.input.value = `/${command.name} `;
    this.close();
    this.input.focus();
  }

  private mention(): { start: number; query: string } | null {
    return this.input.selectionStart === this.input.selectionEnd ? mentionAt(this.input.value, this.input.selectionStart) : null;
  }

  /** Replaces the `@word` at the caret with the file's mention (quoted when its path needs it) and a space. */
  private takeFile(file: string, start: number): void {
    const caret = this.input.selectionStart;
    this.insertAt(start, caret, `${mentionText(file)} `);
    this.close();
  }

  private insertAt(from: number, to: number, text: string): void {
    this.input.focus();
    this.input.setRangeText(text, from, to, "end");
    this.input.dispatchEvent(new Event("input"));
  }

  /** Files dropped on the page (VS Code's explorer: a uri-list, file: or vscode-remote: URIs) become mentions; files outside the project are refused. */
  private onDrop(event: DragEvent): void {
    // VS Code's own list first: its text/uri-list names only the first of several files dragged.
    const list = event.dataTransfer?.getData("application/vnd.code.uri-list") || event.dataTransfer?.getData("text/uri-list") || "";
    if (list === "") return;
    event.preventDefault();
    const { paths, refused } = droppedPaths(list, this.projectDir);
    if (paths.length > 0) {
      const caret = this.input.selectionStart;
      const before = caret > 0 && !/\s$/.test(this.input.value.slice(0, caret)) ? " " : "";
      this.insertAt(caret, this.input.selectionEnd, `${before}${paths.map((each) => mentionText(each)).join(" ")} `);
    }
    if (refused.length > 0) this.showNotice(`Not mentioned (only files inside the project can be): ${refused.join(", ")}`);
  }

  private close(): void {
    this.matches = [];
    this.renderMenu();
  }

  private updateMenu(): void {
    const mention = this.mention();
    if (mention) return this.updateFileMenu(mention);
    const match = /^\/(\S*)$/.exec(this.input.value);
    this.matches = match
      ? this.commands
          .filter((command) => command.name.startsWith(match[1]!))
          .map((command) => ({ label: `/${command.name}`, description: command.description, take: () => this.take(command) }))
      : [];
    this.selected = 0;
    this.renderMenu();
    if (match && this.matches.length === 0)
      this.showNoCommand(this.commands.length === 0 ? "This agent offers no commands." : `No command starts with /${match[1]}.`);
  }

  /** The files matching the `@word` at the caret; the list is asked for when `@` is typed. */
  private updateFileMenu(mention: { start: number; query: string }): void {
    if (mention.query === "" || this.files === null) this.hooks.listFiles();
    const files = matchFiles(this.files ?? [], mention.query);
    this.matches = files.map((file) => ({ label: mentionText(file), description: "", take: () => this.takeFile(file, mention.start) }));
    this.selected = 0;
    this.renderMenu();
    if (this.files !== null && files.length === 0) this.showNoCommand(`No file in the project matches ${mention.query || "that"}.`);
  }

  /** Why the menu has nothing to offer: "/" never shows nothing. */
  private showNoCommand(message: string): void {
    this.menu.hidden = false;
    this.menu.replaceChildren(h("li", { class: "no-command", role: "option", "aria-disabled": "true" }, message));
  }

  private renderMenu(): void {
    this.menu.hidden = this.matches.length === 0;
    this.menu.replaceChildren(
      ...this.matches.map((choice, index) => {
        const item = h(
          "li",
          { role: "option", class: index === this.selected ? "selected" : "", "aria-selected": String(index === this.selected) },
          h("span", { class: "command-name" }, choice.label),
          " ",
          h("span", { class: "command-description" }, choice.description),
        );
        item.addEventListener("mousedown", (event) => {
          event.preventDefault();
          choice.take();
        });
        return item;
      }),
    );
  }
}

/** In VS Code's panel (a frame) files come by Shift+drag too: VS Code keeps a drag out of a webview unless Shift is held. */
const PLACEHOLDER = `Ask the agent… (Enter sends, Shift+Enter new line, @ ${window.parent !== window ? "or Shift+drag " : ""}for files)`;

function hasFiles(event: DragEvent): boolean {
  const types = event.dataTransfer?.types ?? [];
  return types.includes("text/uri-list") || types.includes("application/vnd.code.uri-list");
}

/** Room for the rest of the prompt message around its text (`{"type":"prompt","text":…,"skipContext":false}`). */
const ENVELOPE_BYTES = 64;

/** Why `text` cannot be sent, or null: the message carrying it, as UTF-8 JSON, must fit the server's limit. */
function tooLarge(text: string): string | null {
  const bytes = new TextEncoder().encode(JSON.stringify(text)).length + ENVELOPE_BYTES;
  if (bytes <= MAX_PAGE_MESSAGE_BYTES) return null;
  return `This message is ${megabytes(bytes)}; the chat takes at most ${megabytes(MAX_PAGE_MESSAGE_BYTES)} in one message. Shorten it, or save the text in a file in the project and ask the agent to read that file.`;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`;
}
