// Windows command lines, by Windows' own rules (docs/platforms.md):
// - a program splits its command line the way CommandLineToArgvW and the
//   Microsoft C runtime do ("Parsing C++ command-line arguments", Microsoft
//   Learn): `splitWindowsCommandLine`, and its inverse `quoteWindowsArgument`;
// - cmd.exe (`cmd /d /s /c "…"`, how Node and Toad run a command line
//   through the shell on Windows) reads `^` escapes and `%var%` first:
//   `quoteForCmd` quotes a program and `escapeArgumentForCmd` an argument.
// Pure functions on strings, so they are tested on every platform.

/** Outside quotes, these end a word in a command line. */
const WHITESPACE = /[ \t]/;

/**
 * Splits a command line into words as CommandLineToArgvW does:
 * - words are separated by spaces and tabs outside double quotes;
 * - the first word (the program) ends at the next quote if it starts with
 *   one, else at whitespace; backslashes in it are plain characters;
 * - after it, 2n backslashes before a quote give n backslashes and the quote
 *   opens or closes a quoted part; 2n+1 give n backslashes and a literal quote;
 *   backslashes elsewhere are plain characters;
 * - inside a quoted part, `""` is one literal quote (the C runtime since 2008).
 */
export function splitWindowsCommandLine(commandLine: string): string[] {
  const words: string[] = [];
  let index = skipWhitespace(commandLine, 0);
  if (index >= commandLine.length) return words;
  index = readProgram(commandLine, index, words);
  for (;;) {
    index = skipWhitespace(commandLine, index);
    if (index >= commandLine.length) return words;
    index = readArgument(commandLine, index, words);
  }
}

function skipWhitespace(line: string, index: number): number {
  while (index < line.length && WHITESPACE.test(line[index]!)) index++;
  return index;
}

function readProgram(line: string, start: number, words: string[]): number {
  if (line[start] === '"') {
    const end = line.indexOf('"', start + 1);
    words.push(end === -1 ? line.slice(start + 1) : line.slice(start + 1, end));
    return end === -1 ? line.length : end + 1;
  }
  let end = start;
  while (end < line.length && !WHITESPACE.test(line[end]!)) end++;
  words.push(line.slice(start, end));
  return end;
}

function readArgument(line: string, start: number, words: string[]): number {
  let word = "";
  let quoted = false;
  let index = start;
  while (index < line.length) {
    const char = line[index]!;
    if (!quoted && WHITESPACE.test(char)) break;
    if (char === "\\") {
      let end = index;
      while (line[end] === "\\") end++;
      const count = end - index;
      if (line[end] === '"') {
        word += "\\".repeat(Math.floor(count / 2));
        if (count % 2 === 1) word += '"';
        else quoted = !quoted;
        index = end + 1;
      } else {
        word += "\\".repeat(count);
        index = end;
      }
    } else if (char === '"') {
      if (quoted && line[index + 1] === '"') {
        word += '"';
        index += 2;
      } else {
        quoted = !quoted;
        index++;
      }
    } else {
      word += char;
      index++;
    }
  }
  words.push(word);
  return index;
}

/** One word a program's C runtime reads back as exactly `word` (bare when nothing in it needs quotes). */
export function quoteWindowsArgument(word: string): string {
  return word !== "" && !/[\s"]/.test(word) ? word : runtimeQuoted(word);
}

/** In quotes: each run of backslashes before a quote, or before the closing quote, doubled; each quote escaped. */
function runtimeQuoted(word: string): string {
  return `"${word.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, "$1$1")}"`;
}

/** Words joined into one Windows command line (the inverse of splitWindowsCommandLine). */
export function joinWindowsCommandLine(words: readonly string[]): string {
  return words.map((word, index) => (index === 0 ? quoteWindowsProgram(word) : quoteWindowsArgument(word))).join(" ");
}

/** The program: quoted when it has whitespace (a Windows path never contains `"`). */
function quoteWindowsProgram(program: string): string {
  if (program.includes('"')) throw new Error(`a program path cannot contain '"': ${program}`);
  return program === "" || /\s/.test(program) ? `"${program}"` : program;
}

/** cmd.exe's metacharacters, its token delimiters (space, `,`, `;`) included: cross-spawn's set. */
const CMD_META = /[()\][%!^"`<>&|;, *?]/g;

/**
 * An argument for a program started by `cmd.exe /d /s /c "…"` (qntm.org/cmd,
 * as cross-spawn does it): quoted for the program's C runtime, then every cmd
 * metacharacter, spaces and the quotes included, escaped with `^`, so cmd
 * never enters its own quote mode; `%` is escaped too (`^%`: no variable of
 * that name exists, and the `^` is removed after expansion). The C-runtime
 * quoting is our own: cross-spawn 7.0.6's doubles only one of several
 * backslashes before a quote or at the end (test/unit/acp-wire/platform-windows-command-line.test.ts).
 */
export function escapeArgumentForCmd(word: string): string {
  return runtimeQuoted(word).replace(CMD_META, "^$&");
}

/**
 * The program of a command line cmd.exe runs: in plain double quotes (a
 * Windows path never contains one), which cmd reads as one word, spaces and
 * `&|<>()^` included, and leaves in the line it starts the program with, so
 * the program's C runtime reads the same one word. Inside quotes only
 * `%var%` is still expanded and cannot be escaped: such a path is refused.
 */
export function quoteProgramForCmd(program: string): string {
  if (program.includes('"')) throw new Error(`a program path cannot contain '"': ${program}`);
  if (/%[^%]+%/.test(program)) throw new Error(`cannot pass '${program}' through cmd.exe safely: it contains %…%, which cmd expands`);
  return `"${program}"`;
}
