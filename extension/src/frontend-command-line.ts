// The frontend's command line. The frontend itself is started without a
// shell; the `"<conductor> run"` string it is given IS run through a shell
// (Toad runs its agent command with the platform's shell, and so does the
// built-in chat), so each word of it is quoted for that shell here: a
// conductor path with spaces, quotes or `$` must arrive as one word.

export type ShellKind = "posix" | "cmd";

export function shellOf(platform: NodeJS.Platform): ShellKind {
  return platform === "win32" ? "cmd" : "posix";
}

/** One word for `/bin/sh -c`: single quotes, each `'` written as `'\''`. */
export function quotePosix(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * One word for `cmd.exe /d /s /c "…"` running a program that parses its
 * command line the Microsoft C runtime's way: quoted with backslashes doubled
 * before a quote, then every cmd metacharacter escaped with `^` (cmd reads
 * `^` before the program sees the line). `%` cannot be escaped on a /c line
 * reliably, so a word with `%…%` that names a variable is refused.
 */
export function quoteCmd(word: string): string {
  if (/%[^%\s]+%/.test(word)) throw new Error(`cannot pass '${word}' through cmd.exe safely: it names an environment variable (%…%)`);
  const runtimeQuoted = `"${word.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, "$1$1")}"`;
  return runtimeQuoted.replace(/[()%!^"<>&|]/g, "^$&");
}

export function quoteWord(word: string, shell: ShellKind): string {
  return shell === "posix" ? quotePosix(word) : quoteCmd(word);
}

/** The words joined as a command line for `shell`. */
export function commandLine(words: readonly string[], shell: ShellKind): string {
  return words.map((word) => quoteWord(word, shell)).join(" ");
}

/** How the conductor is run: a program and its leading arguments (a runtime and a script, or one binary). */
export interface ConductorInvocation {
  program: string;
  args: readonly string[];
}

/** The `<conductor> run` string the frontend hands to its shell. */
export function conductorRunCommand(conductor: ConductorInvocation, shell: ShellKind): string {
  return commandLine([conductor.program, ...conductor.args, "run"], shell);
}

/** Arguments before `--serve --port N --host H` (the host adds those, with its private port). */
export function frontendArgs(runCommand: string): string[] {
  return ["acp", runCommand];
}
