// A terminal's output inside its tool call (ACP ToolCallContent of type
// "terminal"): the server sends the output as it grows (at most every 100 ms,
// its last 64 KiB) and once more when the command has exited; the tool call
// may name the terminal before or after the output arrives.

import { h } from "./dom.js";
import type { TranscriptEvent } from "./protocol.js";

type TerminalEvent = TranscriptEvent & { kind: "terminal" };

export class TerminalOutputs {
  private readonly latest = new Map<string, TerminalEvent>();

  constructor(private readonly root: HTMLElement) {}

  clear(): void {
    this.latest.clear();
  }

  /** The element a tool call shows for `terminalId`, filled with what is known so far. */
  element(terminalId: string): HTMLElement {
    const element = h(
      "div",
      { class: "terminal", "data-terminal-id": terminalId },
      h("pre", { class: "terminal-output" }),
      h("div", { class: "meta terminal-status" }, "Running…"),
    );
    const known = this.latest.get(terminalId);
    if (known) fill(element, known);
    return element;
  }

  update(event: TerminalEvent): void {
    this.latest.set(event.terminalId, event);
    for (const element of this.root.querySelectorAll<HTMLElement>(`.terminal[data-terminal-id="${CSS.escape(event.terminalId)}"]`)) fill(element, event);
  }
}

function fill(element: HTMLElement, event: TerminalEvent): void {
  const output = element.querySelector<HTMLElement>(".terminal-output")!;
  const follow = output.scrollHeight - output.scrollTop - output.clientHeight < 20;
  output.textContent = event.output;
  if (follow) output.scrollTop = output.scrollHeight;
  const status = element.querySelector<HTMLElement>(".terminal-status")!;
  const exit = event.exitStatus;
  const ended = exit ? (exit.signal ? `Ended by ${exit.signal}` : `Exited with code ${exit.exitCode ?? "?"}`) : "Running…";
  status.textContent = `${event.truncated ? "Earlier output trimmed. " : ""}${ended}`;
  element.dataset.exited = exit ? "true" : "false";
  if (exit) element.dataset.exitCode = String(exit.exitCode ?? "");
}
