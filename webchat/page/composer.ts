// The input: Enter sends, Shift+Enter breaks the line (Escape, anywhere on
// the page, cancels the turn: main.ts); typing `/` offers the agent's slash commands (arrows to choose, Tab
// or Enter to take one). A prompt over the server's message limit is kept
// in the input with a notice instead of being sent (the server would close
// the connection).

import { MAX_PAGE_MESSAGE_BYTES, type SlashCommand } from "./protocol.js";
import { h } from "./dom.js";

export interface ComposerHooks {
  send(text: string): boolean;
}

export class Composer {
  readonly input = h("textarea", { id: "input", rows: "2", placeholder: PLACEHOLDER, "aria-label": "Message" });
  readonly menu = h("ul", { id: "slash-menu", role: "listbox", hidden: "" });
  /** Why the last Enter did not send (the prompt is too large); main.ts places it above the input. */
  readonly notice = h("div", { id: "composer-notice", class: "error", role: "alert", hidden: "" });
  private commands: SlashCommand[] = [];
  private matches: SlashCommand[] = [];
  private selected = 0;

  constructor(private readonly hooks: ComposerHooks) {
    this.input.addEventListener("keydown", (event) => this.onKey(event));
    this.input.addEventListener("input", () => {
      this.updateMenu();
      this.showNotice(null);
    });
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
    if (this.hooks.send(text)) {
      this.input.value = "";
      this.updateMenu();
    }
  }

  private onKey(event: KeyboardEvent): void {
    if (event.isComposing) return;
    const menuOpen = this.matches.length > 0;
    if (menuOpen && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      this.selected = (this.selected + (event.key === "ArrowDown" ? 1 : this.matches.length - 1)) % this.matches.length;
      this.renderMenu();
    } else if (menuOpen && (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey && !this.input.value.includes(" ")))) {
      event.preventDefault();
      this.take(this.matches[this.selected]!);
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      this.submit();
    } else if (event.key === "Escape" && menuOpen) {
      event.preventDefault(); // the page's Escape (cancel the turn) waits for the next press
      this.close();
    }
  }

  private showNotice(message: string | null): void {
    this.notice.textContent = message ?? "";
    this.notice.hidden = message === null;
    this.input.toggleAttribute("aria-invalid", message !== null);
  }

  private take(command: SlashCommand): void {
    this.input.value = `/${command.name} `;
    this.close();
    this.input.focus();
  }

  private close(): void {
    this.matches = [];
    this.renderMenu();
  }

  private updateMenu(): void {
    const match = /^\/(\S*)$/.exec(this.input.value);
    this.matches = match ? this.commands.filter((command) => command.name.startsWith(match[1]!)) : [];
    this.selected = 0;
    this.renderMenu();
    if (match && this.matches.length === 0)
      this.showNoCommand(this.commands.length === 0 ? "This agent offers no commands." : `No command starts with /${match[1]}.`);
  }

  /** Why the menu has nothing to offer: "/" never shows nothing. */
  private showNoCommand(message: string): void {
    this.menu.hidden = false;
    this.menu.replaceChildren(h("li", { class: "no-command", role: "option", "aria-disabled": "true" }, message));
  }

  private renderMenu(): void {
    this.menu.hidden = this.matches.length === 0;
    this.menu.replaceChildren(
      ...this.matches.map((command, index) => {
        const item = h(
          "li",
          { role: "option", class: index === this.selected ? "selected" : "", "aria-selected": String(index === this.selected) },
          h("span", { class: "command-name" }, `/${command.name}`),
          " ",
          h("span", { class: "command-description" }, command.description),
        );
        item.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.take(command);
        });
        return item;
      }),
    );
  }
}

const PLACEHOLDER = "Ask the agent… (Enter sends, Shift+Enter new line)";

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
