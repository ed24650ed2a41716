// The panel page's only script: applies status messages from the extension
// without reloading the chat's iframe, moves focus into the chat, passes the
// theme on to the chat page, and sends the Retry (or Start) button's click back.
// It is also the middle of the bridge: requests from the chat page (only from
// the chat's own frame and origin, only the kinds below) go to the extension,
// which checks them again (parseFromPanel); mentions go the other way.
// Message shapes: webview/src/panel-messages.ts.
(function () {
  const vscode = acquireVsCodeApi();
  const frame = document.getElementById("chat");
  const status = document.getElementById("status");
  const message = document.getElementById("message");
  const detail = document.getElementById("detail");
  const retry = document.getElementById("retry");
  const chatOrigin = frame ? new URL(frame.src).origin : null;
  /** VS Code's chords the chat hands back (panel-messages.ts: CHORD_COMMANDS). */
  const CHORDS = (document.body.dataset.chords || "").split(" ").filter(Boolean);

  function focusChat() {
    if (frame && !frame.hidden) {
      frame.focus();
      if (frame.contentWindow) {
        frame.contentWindow.focus();
        if (chatOrigin) frame.contentWindow.postMessage({ type: "symposium/focus" }, chatOrigin);
      }
    }
  }
  // The chat loads after it is shown: hand it the keys then, if the panel still has them.
  // Mentions that came before the chat page loaded wait for it.
  let chatLoaded = false;
  const pendingMentions = [];
  if (frame)
    frame.addEventListener("load", () => {
      chatLoaded = true;
      toChat({ type: "symposium/chords", chords: CHORDS });
      pendingMentions.splice(0).forEach((text) => toChat({ type: "symposium/mention", text }));
      if (document.hasFocus()) focusChat();
    });

  let seq = Number(document.body.dataset.seq) || 0;

  function showStatus(next, nextSeq) {
    // VS Code may deliver a message posted before this page was rendered: ignore older statuses.
    if (nextSeq < seq) return;
    seq = nextSeq;
    // A restart keeps the old chat on screen under its message; a notice shows above the chat.
    const ready = next.kind === "ready" || (next.kind === "starting" && next.keepChat === true);
    const line = next.kind === "ready" ? next.notice || "" : next.message;
    const wasReady = frame !== null && !frame.hidden;
    status.hidden = !line;
    status.dataset.state = next.kind;
    status.classList.toggle("over-chat", ready);
    if (frame) frame.hidden = !ready;
    message.textContent = line;
    // A notice above a ready chat goes after a while (unless another status came since).
    if (next.kind === "ready" && line)
      setTimeout(() => {
        if (seq === nextSeq) status.hidden = true;
      }, 8000);
    message.className = next.kind === "error" ? "error" : "";
    detail.textContent = next.kind === "error" && next.detail ? next.detail : "";
    detail.hidden = !detail.textContent;
    retry.hidden = !((next.kind === "error" && next.retry) || next.kind === "stopped");
    retry.textContent = next.kind === "stopped" ? "Start" : "Retry";
    // The chat takes the keys when it appears only if the panel has them now: a
    // user who went back to the editor while it started keeps typing there.
    if (ready && !wasReady && document.hasFocus()) focusChat();
  }

  window.addEventListener("message", (event) => {
    const data = event.data;
    // The extension's messages come through VS Code's host; the chat frame's never count as the extension's.
    if (frame?.contentWindow && event.source === frame.contentWindow) return;
    if (!data || typeof data.type !== "string") return;
    if (data.type === "status") showStatus(data.status, Number(data.seq) || 0);
    else if (data.type === "focus") focusChat();
    else if (data.type === "theme") toChat({ type: "symposium/theme", theme: data.theme });
    else if (data.type === "mention" && typeof data.text === "string") {
      focusChat();
      if (chatLoaded) toChat({ type: "symposium/mention", text: data.text });
      else pendingMentions.push(data.text);
    }
  });

  function toChat(message) {
    if (frame?.contentWindow && chatOrigin) frame.contentWindow.postMessage(message, chatOrigin);
  }

  /** Whether a message came from the chat page itself (its window and its origin), not from anything else. */
  function fromChat(event) {
    return frame !== null && event.source === frame.contentWindow && event.origin === chatOrigin && event.data !== null && typeof event.data === "object";
  }

  const REQUEST_KINDS = ["chord", "openDiff", "openFile", "agent"];
  window.addEventListener("message", (event) => {
    if (!fromChat(event) || event.data.type !== "symposium/request") return;
    const request = event.data.request;
    if (!request || typeof request !== "object" || !REQUEST_KINDS.includes(request.kind)) return;
    if (request.kind === "chord" && !CHORDS.includes(request.chord)) return;
    vscode.postMessage({ type: "request", request });
  });
  // The chat page names a new conversation ("New chat"): remember it for the next reload.
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (fromChat(event) && data.type === "symposium/conversation" && typeof data.conversation === "string") {
      vscode.postMessage({ type: "conversation", conversation: data.conversation });
    }
  });
  retry.addEventListener("click", () => vscode.postMessage({ type: "retry" }));
  document.addEventListener("click", () => focusChat());
  window.addEventListener("focus", () => focusChat());
})();
