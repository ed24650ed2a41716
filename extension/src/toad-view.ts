// The webview view in the bottom panel that will hold Toad's iframe. For
// now it renders the panel's status page; starting and reconnecting to
// Toad is the panel issue's work.

import * as crypto from "node:crypto";
import * as vscode from "vscode";
import { panelHtml, type PanelState } from "../../webview/src/panel-html.js";

export const TOAD_VIEW_ID = "symposium.toadView";

export class ToadViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private state: PanelState = {
    kind: "starting",
    message: "Symposium's chat panel. Toad is not started by this version yet; run “Symposium: Show Editor Context” to see what an agent would receive.",
  };

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [this.mediaRoot()] };
    view.onDidDispose(() => (this.view = undefined));
    this.render();
    this.log.info("chat panel opened");
  }

  setState(state: PanelState): void {
    this.state = state;
    this.render();
  }

  private render(): void {
    if (!this.view) return;
    const webview = this.view.webview;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(16).toString("base64"),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.mediaRoot(), "panel.css")).toString(),
      state: this.state,
    });
  }

  private mediaRoot(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, "webview", "media");
  }
}
