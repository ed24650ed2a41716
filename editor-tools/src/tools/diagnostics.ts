// diagnostics: the problems the language servers and linters report now, for
// one file or the whole workspace, errors first, a page at a time.

import { LIMITS, TOOL, pageOf } from "../protocol.js";
import type { Editor, FileDiagnostics } from "./editor.js";
import { object, offset, path } from "./schema.js";
import { capped, inWorkspace, integer, rangeOf, resolvePath, type WindowTool } from "./tool.js";

const SEVERITY = ["error", "warning", "information", "hint"] as const;

export const diagnostics: WindowTool = {
  name: TOOL.diagnostics,
  description: `The problems VS Code's language servers and linters report now (errors, warnings, infos, hints: severity, range, message, source), for one file or, without \`path\`, for the whole workspace. Check it after editing to see whether the code still compiles. ${LIMITS.pageSize} entries per page, errors first.`,
  inputSchema: object({ path, offset }),
  fallsBack: true,
  readOnly: true,
  handle: async (params, editor) => answer(params, editor),
};

function answer(params: Record<string, unknown>, editor: Editor): Record<string, unknown> {
  const start = integer(params.offset, "offset", 0);
  const files: FileDiagnostics[] =
    params.path === undefined
      ? editor.allDiagnostics().filter((file) => inWorkspace(file.path, editor))
      : [editor.fileDiagnostics(resolvePath(params.path, editor))];
  const all = files
    .flatMap((file) =>
      file.diagnostics.map((diagnostic) => ({
        path: file.path,
        severity: SEVERITY[diagnostic.severity] ?? "error",
        ...rangeOf(diagnostic.range),
        message: capped(diagnostic.message, 1000),
        source: diagnostic.source ?? null,
        code: diagnostic.code ?? null,
      })),
    )
    .sort((a, b) => SEVERITY.indexOf(a.severity) - SEVERITY.indexOf(b.severity));
  const { items, page } = pageOf(all, start);
  return { ...page, diagnostics: items };
}
