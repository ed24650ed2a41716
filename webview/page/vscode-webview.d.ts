// What VS Code gives a webview's page: the one global the panel page uses.

/** The page's channel to its extension (panel-messages.ts: FromPanel). */
interface VsCodeWebviewApi {
  postMessage(message: unknown): void;
  /** The page's state, which VS Code keeps for a view across window reloads. */
  getState(): unknown;
  setState(state: unknown): void;
}

/** VS Code's webview API; a page may acquire it once. */
declare function acquireVsCodeApi(): VsCodeWebviewApi;
