// The agent picker (docs/webchat.md: choosing the agent): the agents the
// conductor lists (built-ins, the registry's, custom ones), one select in the
// header beside the model picker. Choosing one asks the server to save it;
// once saved, the page starts a new conversation with it. Shown only when
// the server sends a list (its agent command is Symposium's conductor).

import { h } from "./dom.js";
import type { AgentChoice } from "./protocol.js";

export class AgentPicker {
  readonly element = h("select", { id: "agent-picker", "aria-label": "Agent", title: "The agent: choosing one starts a new conversation with it", hidden: "" });
  private agents: AgentChoice[] = [];
  /** The id shown as the current agent ("" when not known). */
  private current = "";

  constructor(private readonly choose: (agent: AgentChoice) => void) {
    this.element.addEventListener("change", () => this.changed());
  }

  /**
   * Shows `agents`, `currentId` selected: the server's last choice, else the
   * one named like the running agent, else a placeholder with that name.
   */
  show(agents: AgentChoice[], currentId: string | undefined, runningName: string | undefined): void {
    this.agents = agents;
    const byName = runningName ? agents.find((agent) => agent.name.toLowerCase() === runningName.toLowerCase()) : undefined;
    this.current = agents.some((agent) => agent.id === currentId) ? currentId! : (byName?.id ?? "");
    // Never a bare "Agent": a command of the user's own, not in the list, is named as what it is.
    const placeholder = this.current === "" ? [h("option", { value: "", disabled: "" }, runningName ?? "The agent in your config")] : [];
    this.element.replaceChildren(...placeholder, ...agents.map((agent) => h("option", { value: agent.id, title: describe(agent) }, agent.name)));
    this.element.value = this.current;
    this.element.disabled = false;
    this.element.hidden = agents.length === 0;
  }

  /** Takes the keyboard and opens the list, where the browser can (the failure banner's "Choose another agent"). */
  open(): void {
    this.element.focus();
    try {
      this.element.showPicker();
    } catch {
      // Not allowed here (no user gesture, an old browser): focused, the arrows choose.
    }
  }

  /** The server refused or failed the choice: back to the current agent. */
  reset(): void {
    this.element.value = this.current;
    this.element.disabled = false;
  }

  private changed(): void {
    const agent = this.agents.find((each) => each.id === this.element.value);
    if (!agent || agent.id === this.current) return;
    this.element.disabled = true; // until the server answers: one choice at a time
    this.choose(agent);
  }
}

/** The option's tooltip: id, version, description. */
function describe(agent: AgentChoice): string {
  return [`${agent.id}${agent.version ? ` ${agent.version}` : ""}`, agent.description].filter(Boolean).join(" — ");
}
