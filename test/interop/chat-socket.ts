// The built-in chat's page websocket, from Node, for the interop tests: the
// tests' one page client (support/chat-page.ts) with a real agent's pace (20 s
// by default), and a turn that fails counting as answered.

import { ChatPage } from "../support/chat-page.js";
import type { ChatServer } from "../support/webchat-server.js";

export class ChatSocket extends ChatPage {
  constructor(server: ChatServer) {
    super(server);
  }

  override ready(timeoutMs = 20_000): Promise<void> {
    return super.ready(timeoutMs);
  }

  /** Sends a prompt and waits for its turn to end or fail. */
  override ask(text: string, timeoutMs = 20_000): Promise<string> {
    return super.ask(text, timeoutMs, true);
  }
}
