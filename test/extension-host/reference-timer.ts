// The reference provider's timer: the extension test/fixtures/reference-timer,
// packaged and installed into code-server by test/e2e/editor-tools.test.ts (this
// file, bundled, is its extension.cjs). Its command times VS Code's own
// `vscode.executeReferenceProvider` in the same extension host as Symposium, so
// the test can set find_references' round trip against it without any timing in
// Symposium itself. The test writes the request to the file
// SYMPOSIUM_REFERENCE_TIMER names; the times go to the request's `out` file.

import * as fs from "node:fs";
import * as vscode from "vscode";

/** Where the test writes its request (test/e2e/editor-tools.test.ts). */
const REQUEST_FILE_ENV = "SYMPOSIUM_REFERENCE_TIMER";

interface TimerRequest {
  /** The file and the 1-based line and 0-based character of the symbol, as find_references is asked. */
  path: string;
  line: number;
  character: number;
  calls: number;
  /** Where the answer goes: `{ providerMs, references }` or `{ error }`. */
  out: string;
}

async function timeReferences(request: TimerRequest): Promise<{ providerMs: number[]; references: number }> {
  const uri = vscode.Uri.file(request.path);
  const position = new vscode.Position(request.line - 1, request.character);
  const providerMs: number[] = [];
  let references = 0;
  for (let i = 0; i < request.calls; i++) {
    const started = performance.now();
    const found = await vscode.commands.executeCommand<vscode.Location[] | undefined>("vscode.executeReferenceProvider", uri, position);
    providerMs.push(performance.now() - started);
    references = found?.length ?? 0;
  }
  return { providerMs, references };
}

async function answer(): Promise<void> {
  const requestFile = process.env[REQUEST_FILE_ENV];
  if (requestFile === undefined) throw new Error(`${REQUEST_FILE_ENV} is not set`);
  const request = JSON.parse(fs.readFileSync(requestFile, "utf8")) as TimerRequest;
  let answer: unknown;
  try {
    answer = await timeReferences(request);
  } catch (error) {
    answer = { error: (error as Error).message };
  }
  // Whole or not at all: the test reads the file as soon as it exists.
  fs.writeFileSync(`${request.out}.partial`, JSON.stringify(answer));
  fs.renameSync(`${request.out}.partial`, request.out);
}

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.commands.registerCommand("symposiumTest.timeReferences", answer));
}
