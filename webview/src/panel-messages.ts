// The messages between the extension and the panel's page (media/panel.js).
// Pure types, and the check of what the page sends.

export type PanelStatus =
  | { kind: "starting"; message: string }
  | { kind: "ready" }
  | { kind: "error"; message: string; detail?: string; retry?: boolean };

/** VS Code's theme kind, as the chat is told it (`theme` query parameter and message). */
export type ChatTheme = "light" | "dark" | "high-contrast";

export type ToPanel =
  /** `seq` orders statuses: a message queued before the page was re-rendered must not undo it. */
  | { type: "status"; status: PanelStatus; seq: number }
  | { type: "focus" }
  | { type: "theme"; theme: ChatTheme };

/** `conversation`: the chat page started a new conversation ("New chat"); a reload should return to it. */
export type FromPanel = { type: "retry" } | { type: "conversation"; conversation: string };

/** A message from the page as a FromPanel, or null when it is not one (the page's messages are checked, not trusted). */
export function parseFromPanel(data: unknown): FromPanel | null {
  if (typeof data !== "object" || data === null) return null;
  const message = data as { type?: unknown; conversation?: unknown };
  if (message.type === "retry") return { type: "retry" };
  if (message.type === "conversation" && typeof message.conversation === "string") return { type: "conversation", conversation: message.conversation };
  return null;
}
