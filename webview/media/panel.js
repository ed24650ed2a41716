// The panel page's only script: applies status messages from the extension
// without reloading the chat's iframe, moves focus into the chat, passes the
// theme on to the chat page, and sends the Retry button's click back.
// Message shapes: webview/src/panel-messages.ts.
(function () {
  const vscode = acquireVsCodeApi();
  const frame = document.getElementById("chat");
  const status = document.getElementById("status");
  const message = document.getElementById("message");
  const detail = document.getElementById("detail");
  const retry = document.getElementById("retry");
  const chatOrigin = frame ? new URL(frame.src).origin : null;

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
  if (frame) frame.addEventListener("load", () => {
    if (document.hasFocus()) focusChat();
  });

  let seq = Number(document.body.dataset.seq) || 0;

  function showStatus(next, nextSeq) {
    // VS Code may deliver a message posted before this page was rendered: ignore older statuses.
    if (nextSeq < seq) return;
    seq = nextSeq;
    const ready = next.kind === "ready";
    const wasReady = frame !== null && !frame.hidden;
    status.hidden = ready;
    status.dataset.state = next.kind;
    if (frame) frame.hidden = !ready;
    message.textContent = ready ? "" : next.message;
    message.className = next.kind === "error" ? "error" : "";
    detail.textContent = next.kind === "error" && next.detail ? next.detail : "";
    detail.hidden = !detail.textContent;
    retry.hidden = !(next.kind === "error" && next.retry);
    // The chat takes the keys when it appears only if the panel has them now: a
    // user who went back to the editor while it started keeps typing there.
    if (ready && !wasReady && document.hasFocus()) focusChat();
  }

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || typeof data.type !== "string") return;
    if (data.type === "status") showStatus(data.status, Number(data.seq) || 0);
    else if (data.type === "focus") focusChat();
    else if (data.type === "theme" && frame && frame.contentWindow && chatOrigin) {
      frame.contentWindow.postMessage({ type: "symposium/theme", theme: data.theme }, chatOrigin);
    }
  });
  // The chat page names a new conversation ("New chat"): remember it for the next reload.
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (frame && event.source === frame.contentWindow && event.origin === chatOrigin && data && data.type === "symposium/conversation" && typeof data.conversation === "string") {
      vscode.postMessage({ type: "conversation", conversation: data.conversation });
    }
  });
  retry.addEventListener("click", () => vscode.postMessage({ type: "retry" }));
  document.addEventListener("click", () => focusChat());
  window.addEventListener("focus", () => focusChat());
})();
