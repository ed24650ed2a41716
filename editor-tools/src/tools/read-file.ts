// read_file: a file as the editor has it, unsaved changes included (an open
// document's text, else the disk's), a page of lines at a time.

import { LIMITS, TOOL, linesOf, type ReadFileResult } from "../protocol.js";
import type { Editor } from "./editor.js";
import { line, object, path } from "./schema.js";
import { ChannelRefusal, errorCode, integer, resolvePath, type WindowTool } from "./tool.js";

export const readFile: WindowTool = {
  name: TOOL.readFile,
  description: `Read a file as the VS Code editor has it, unsaved changes included (reading the disk would miss what the user typed but did not save). Answers at most ${LIMITS.defaultLines} lines or ${LIMITS.maxAnswerChars} characters per call; ask again from \`nextLine\` for more. Only files inside the workspace folders.`,
  inputSchema: object(
    {
      path,
      line: { ...line, description: "1-based line to start at (default 1)." },
      limit: { type: "integer", minimum: 1, maximum: LIMITS.defaultLines, description: `How many lines (default and most: ${LIMITS.defaultLines}).` },
    },
    ["path"],
  ),
  fallsBack: true,
  readOnly: true,
  handle: async (params, editor) => answer(params, editor),
};

function answer(params: Record<string, unknown>, editor: Editor): ReadFileResult {
  const real = resolvePath(params.path, editor);
  const first = integer(params.line, "line", 1);
  const limit = Math.min(integer(params.limit, "limit", 1) ?? LIMITS.defaultLines, LIMITS.defaultLines);
  const document = editor.openDocument(real);
  if (document) return { path: real, source: "editor", unsaved: document.unsaved, ...linesOf(document.text(), first, limit) };
  try {
    return { path: real, source: "disk", unsaved: false, ...linesOf(editor.readDisk(real), first, limit) };
  } catch (error) {
    throw new ChannelRefusal(`cannot read ${real}: ${errorCode(error)}`);
  }
}
