// The messages between the extension and the panel's page (media/panel.js).
// Pure types and constants.

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
