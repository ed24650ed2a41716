// What a tool is (its name, description, schema, hints and the window's
// handler), how a handler refuses a call, and the checks every handler shares:
// a path inside the workspace folders (workspace-paths.ts, the one check), a
// document loaded within the size bound, integer arguments, capped text.

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { CHANNEL_ERROR, ChannelRefusal, LIMITS, type ToolName } from "../protocol.js";

/** A handler refuses a call with the channel's own refusal (its error code carried to the agent). */
export { ChannelRefusal };
import { insideFolders } from "../workspace-paths.js";
import type { Editor, EditorDocument, Range } from "./editor.js";

/** A tool as tools/list shows it and as the window answers it. */
export interface EditorTool {
  name: ToolName;
  description: string;
  inputSchema: Tool["inputSchema"];
  /** Answered from the state file when no window is connected. */
  fallsBack: boolean;
  /** Changes nothing (MCP's readOnlyHint). */
  readOnly: boolean;
  /** The window's answer, from the editor; none when the window answers it elsewhere (present_walkthrough: extension/src/walkthroughs/walkthrough-view.ts). */
  handle?: (params: Record<string, unknown>, editor: Editor) => Promise<unknown>;
}

/** A tool the window answers from the editor. */
export type WindowTool = EditorTool & Required<Pick<EditorTool, "handle">>;

/** The real path of `file` inside the workspace, or a refusal naming it. */
export function resolvePath(file: unknown, editor: Editor): string {
  if (typeof file !== "string" || file === "") throw new ChannelRefusal("path must be a non-empty string", CHANNEL_ERROR.invalidParams);
  const real = insideFolders(file, editor.folders());
  if (real === undefined)
    throw new ChannelRefusal(
      `${file} is outside this window's workspace folders (${editor.folders().join(", ") || "none"}); refused`,
      CHANNEL_ERROR.outsideWorkspace,
    );
  return real;
}

/** Whether `file` is inside the workspace folders. */
export function inWorkspace(file: string, editor: Editor): boolean {
  return insideFolders(file, editor.folders()) !== undefined;
}

/** The document for `real`, loaded when it is not open (a language feature needs one); bounded by LIMITS.maxFileBytes. */
export async function loadDocument(real: string, editor: Editor): Promise<EditorDocument> {
  const open = editor.openDocument(real);
  if (open) return open;
  let size: number;
  try {
    size = editor.fileSize(real);
  } catch (error) {
    throw new ChannelRefusal(`cannot open ${real}: ${errorCode(error)}`);
  }
  if (size > LIMITS.maxFileBytes) throw new ChannelRefusal(`${real} is ${size} bytes, over the ${LIMITS.maxFileBytes}-byte limit`);
  return editor.loadDocument(real);
}

/** An error's errno code, else its message. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** `value` as an integer of at least `least`, undefined when absent; else a refusal naming `name`. */
export function integer(value: unknown, name: string, least: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least)
    throw new ChannelRefusal(`${name} must be an integer of at least ${least}`, CHANNEL_ERROR.invalidParams);
  return value;
}

export function capped(text: string, most: number): string {
  return text.length > most ? `${text.slice(0, most)}… (${text.length - most} more characters)` : text;
}

/** A range as the tools answer it: 1-based. */
export function rangeOf(range: Range): { line: number; character: number; endLine: number; endCharacter: number } {
  return { line: range.start.line + 1, character: range.start.character + 1, endLine: range.end.line + 1, endCharacter: range.end.character + 1 };
}
