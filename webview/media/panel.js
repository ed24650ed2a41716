// @ts-check
// The panel page's only script: applies status messages from the extension
// without reloading the chat's iframe, moves focus into the chat, passes the
// theme on to the chat page, and sends the Retry (or Start) button's click back.
// It keeps the chat page's latest copy of the conversation (text only) in this
// webview's state, which VS Code keeps across window reloads: after a reload the
// panel shows it at once, while the extension checks the host and the chat page
// loads behind it, until the chat page has shown the conversation itself (P8).
// It is also the middle of the bridge: requests from the chat page (only from
// the chat's own frame and origin, only the kinds below) go to the extension,
// which checks them again (parseFromPanel); mentions go the other way.
// Message shapes: webview/src/panel-messages.ts. Type-checked (JSDoc) by
// webview/media/tsconfig.json; every message is checked before it is used.
(function () {
  /** @typedef {import("../src/panel-messages.js").PanelStatus} PanelStatus */
  /** @typedef {import("../src/panel-messages.js").FromPanel} FromPanel */

  const vscode = acquireVsCodeApi();
  /** @param {FromPanel} message */
  const toExtension = (message) => vscode.postMessage(message);
  const chatElement = document.getElementById("chat");
  const frame = chatElement instanceof HTMLIFrameElement ? chatElement : null;
  const status = element("status");
  const message = element("message");
  const detail = element("detail");
  const retry = element("retry");
  const chatOrigin = frame ? new URL(frame.src).origin : null;
  /** VS Code's chords the chat hands back (panel-messages.ts: CHORD_COMMANDS). */
  const CHORDS = (document.body.dataset.chords ?? "").split(" ").filter(Boolean);

  /**
   * An element the panel's HTML always has (webview/src/panel-html.ts).
   * @param {string} id
   */
  function element(id) {
    const found = document.getElementById(id);
    if (!found) throw new Error(`the panel page has no #${id}`);
    return found;
  }

  /**
   * @param {unknown} value
   * @returns {value is Record<string, unknown>}
   */
  function isObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
  }

  /**
   * A status from the extension, rebuilt from its known fields, or null when it is not one.
   * @param {unknown} value
   * @returns {PanelStatus | null}
   */
  function parseStatus(value) {
    if (!isObject(value)) return null;
    const text = (/** @type {unknown} */ field) => (typeof field === "string" ? field : undefined);
    switch (value.kind) {
      case "starting":
        return { kind: "starting", message: text(value.message) ?? "", keepChat: value.keepChat === true };
      case "ready":
        return { kind: "ready", notice: text(value.notice) };
      case "stopped":
        return { kind: "stopped", message: text(value.message) ?? "", button: text(value.button) };
      case "error":
        return { kind: "error", message: text(value.message) ?? "", detail: text(value.detail), retry: value.retry === true };
      default:
        return null;
    }
  }

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
  /** @type {string[]} */
  const pendingMentions = [];
  if (frame)
    frame.addEventListener("load", () => {
      chatLoaded = true;
      if (status.dataset.loading) {
        status.hidden = true;
        delete status.dataset.loading;
      }
      loadedChat();
      toChat({ type: "symposium/chords", chords: CHORDS });
      pendingMentions.splice(0).forEach((text) => toChat({ type: "symposium/mention", text }));
      if (document.hasFocus()) focusChat();
    });

  /** panel-messages.ts: ChatTheme and EditResult. */
  const THEMES = ["light", "dark", "high-contrast"];
  const EDIT_RESULTS = ["applied", "rejected", "notOpen", "unanswered", "changed", "unsaved", "failed"];

  let seq = Number(document.body.dataset.seq) || 0;

  /** webchat/page/kept-transcript.ts: the chat page's copy of its conversation, and its bounds. */
  const KEPT_MESSAGE = "symposium/transcript";
  const KEPT_ROLES = ["user", "agent", "other"];
  const KEPT_MAX_ENTRIES = 60;
  const KEPT_MAX_CHARS = 4000;
  /** A chat page that never sends a copy (Toad's) is shown this long after it loaded. */
  const KEPT_WAIT_MS = 3000;
  /** @typedef {{ role: string, text: string }} KeptEntry */

  /**
   * The entries of a copy, rebuilt from their known fields and cut to the bounds.
   * @param {unknown} value
   * @returns {KeptEntry[]}
   */
  function keptEntries(value) {
    if (!Array.isArray(value)) return [];
    return value
      .slice(-KEPT_MAX_ENTRIES)
      .flatMap((/** @type {unknown} */ entry) =>
        isObject(entry) && typeof entry.text === "string" && typeof entry.role === "string" && KEPT_ROLES.includes(entry.role)
          ? [{ role: entry.role, text: entry.text.slice(0, KEPT_MAX_CHARS) }]
          : [],
      );
  }

  const savedState = vscode.getState();
  let kept = keptEntries(isObject(savedState) ? savedState.kept : undefined);
  /** Whether the status puts the chat on screen (ready, or a restart that keeps it). */
  let chatWanted = status.dataset.state === "ready" || (status.dataset.state === "starting" && status.classList.contains("over-chat"));
  /** Whether the chat page in the frame has shown its conversation (its first copy came). */
  let chatShown = false;
  const keptView = document.createElement("section");
  keptView.id = "kept";
  keptView.setAttribute("aria-label", "The conversation, as it was (the chat is reconnecting)");
  keptView.hidden = true;
  document.body.insertBefore(keptView, frame ?? status.nextSibling);
  updateKept();

  /** Shows the kept copy while the chat is wanted but not on screen yet. */
  function updateKept() {
    const show = kept.length > 0 && chatWanted && !chatShown;
    if (show && keptView.childElementCount === 0) drawKept();
    keptView.hidden = !show;
    document.body.classList.toggle("keeping", show);
    if (show) document.body.dataset.keptShownAt ??= String(Date.now()); // what bench/figures/panel-reload.ts times
  }

  function drawKept() {
    keptView.replaceChildren(
      ...kept.map((entry) => {
        const block = document.createElement("div");
        block.className = `kept-entry ${entry.role}`;
        block.textContent = entry.text;
        return block;
      }),
    );
    // The chat page follows the end of the conversation; so does its copy.
    requestAnimationFrame(() => (keptView.scrollTop = keptView.scrollHeight));
  }

  /** What a ready chat whose page is still loading says: a kept copy under it means it reconnects. */
  function loadingLine() {
    return kept.length > 0 ? "Reconnecting to the chat…" : "Starting the chat…";
  }
  if (status.dataset.loading) message.textContent = loadingLine();

  function forgetKept() {
    kept = [];
    vscode.setState({ kept });
  }

  /** The chat page loaded: its copy comes once it has replayed the conversation (a page that sends none is shown after a while). */
  function loadedChat() {
    vscode.setState({ kept: [] }); // the page sends its own copy; until then a reload finds none that may be stale
    setTimeout(() => {
      chatShown = true;
      updateKept();
    }, KEPT_WAIT_MS);
  }

  /**
   * @param {PanelStatus} next
   * @param {number} nextSeq
   */
  function showStatus(next, nextSeq) {
    // VS Code may deliver a message posted before this page was rendered: ignore older statuses.
    if (nextSeq < seq) return;
    seq = nextSeq;
    // A restart keeps the old chat on screen under its message; a notice shows above the chat.
    const ready = next.kind === "ready" || (next.kind === "starting" && next.keepChat === true);
    // A chat that starts afresh is a new conversation: the kept copy is not its own.
    if (next.kind === "starting" && !ready) forgetKept();
    chatWanted = ready;
    updateKept();
    // Until the chat's page has loaded, a ready chat is said to be starting (its area would be blank).
    const loading = next.kind === "ready" && !next.notice && frame !== null && !chatLoaded;
    if (loading) status.dataset.loading = "1";
    else delete status.dataset.loading;
    const line = loading ? loadingLine() : next.kind === "ready" ? (next.notice ?? "") : next.message;
    const wasReady = frame !== null && !frame.hidden;
    status.hidden = !line;
    status.dataset.state = next.kind;
    status.classList.toggle("over-chat", ready);
    if (frame) frame.hidden = !ready;
    message.textContent = line;
    // A notice above a ready chat goes after a while (unless another status came since).
    if (next.kind === "ready" && line && !loading)
      setTimeout(() => {
        if (seq === nextSeq) status.hidden = true;
      }, 8000);
    message.className = next.kind === "error" ? "error" : "";
    detail.textContent = next.kind === "error" && next.detail ? next.detail : "";
    detail.hidden = !detail.textContent;
    retry.hidden = !(next.kind === "stopped" || (next.kind === "error" && next.retry === true));
    retry.textContent = next.kind === "stopped" ? (next.button ?? "Start") : "Retry";
    // The chat takes the keys when it appears only if the panel has them now: a
    // user who went back to the editor while it started keeps typing there.
    if (ready && !wasReady && document.hasFocus()) focusChat();
  }

  /**
   * Whether a message is the extension's: VS Code's webview host, the window this page is a frame
   * of, relays what the extension posts, from this page's own origin. (The host deletes
   * `window.parent` before this script runs: it is found as the window whose frames hold this one.)
   * Any other frame in the window (the chat's, another extension's webview, a page in Simple
   * Browser, the workbench) can reach this page through `top.frames` and post to it: never the
   * extension (issue 31, item 3).
   * @param {MessageEvent<unknown>} event
   */
  function fromExtension(event) {
    const source = /** @type {Window | null} */ (event.source);
    if (!source || source === window || event.origin !== window.origin) return false;
    try {
      // eslint-disable-next-line @typescript-eslint/prefer-for-of -- a Window is not iterable
      for (let index = 0; index < source.length; index++) if (source[index] === window) return true;
    } catch {
      return false; // not a window
    }
    return false;
  }

  window.addEventListener("message", (/** @type {MessageEvent<unknown>} */ event) => {
    const data = event.data;
    if (!fromExtension(event)) return;
    if (!isObject(data) || typeof data.type !== "string") return;
    if (data.type === "status") {
      const next = parseStatus(data.status);
      if (next) showStatus(next, Number(data.seq) || 0);
    } else if (data.type === "focus") focusChat();
    else if (data.type === "theme" && typeof data.theme === "string" && THEMES.includes(data.theme)) toChat({ type: "symposium/theme", theme: data.theme });
    else if (data.type === "editResult" && typeof data.id === "string" && typeof data.result === "string" && EDIT_RESULTS.includes(data.result)) {
      toChat({ type: "symposium/editResult", id: data.id, result: data.result });
    } else if (data.type === "mention" && typeof data.text === "string") {
      focusChat();
      if (chatLoaded) toChat({ type: "symposium/mention", text: data.text });
      else pendingMentions.push(data.text);
    }
  });

  /** @param {Record<string, unknown>} message */
  function toChat(message) {
    if (frame?.contentWindow && chatOrigin) frame.contentWindow.postMessage(message, chatOrigin);
  }

  /**
   * The message's data when it came from the chat page itself (its window and its origin) and is an object, else null.
   * @param {MessageEvent<unknown>} event
   */
  function fromChat(event) {
    return frame !== null && event.source === frame.contentWindow && event.origin === chatOrigin && isObject(event.data) ? event.data : null;
  }

  const REQUEST_KINDS = ["chord", "openDiff", "openFile", "agent", "applyEdit", "withdrawEdit", "reviewTurn", "undoTurn", "rewindTurn", "openUrl", "attention"];
  window.addEventListener("message", (/** @type {MessageEvent<unknown>} */ event) => {
    const data = fromChat(event);
    if (data?.type !== "symposium/request") return;
    const request = data.request;
    if (!isObject(request) || typeof request.kind !== "string" || !REQUEST_KINDS.includes(request.kind)) return;
    if (request.kind === "chord" && (typeof request.chord !== "string" || !CHORDS.includes(request.chord))) return;
    // The extension rebuilds the request from its known fields (parseBridgeRequest): passed on as it came.
    vscode.postMessage({ type: "request", request });
  });
  // The chat page names a new conversation ("New chat"): remember it for the next reload.
  window.addEventListener("message", (/** @type {MessageEvent<unknown>} */ event) => {
    const data = fromChat(event);
    if (data?.type === "symposium/conversation" && typeof data.conversation === "string") {
      toExtension({ type: "conversation", conversation: data.conversation });
    }
  });
  // The chat page's copy of its conversation: kept for the next reload; it also says the page is on screen.
  window.addEventListener("message", (/** @type {MessageEvent<unknown>} */ event) => {
    const data = fromChat(event);
    if (data?.type !== KEPT_MESSAGE) return;
    kept = keptEntries(data.entries);
    vscode.setState({ kept });
    chatShown = true;
    updateKept();
  });
  retry.addEventListener("click", () => toExtension({ type: "retry" }));
  document.addEventListener("click", () => focusChat());
  window.addEventListener("focus", () => focusChat());
})();
