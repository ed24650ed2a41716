// The frontend's command line. The frontend itself is started without a
// shell. The built-in chat is given the conductor as a program and its
// arguments (`--agent-program`, `--agent-arg`, `--agent-env`) and runs it
// without a shell: nothing is quoted. Toad takes its agent command only as a
// string, which it runs with the platform's shell (`/bin/sh -c` on POSIX,
// `cmd.exe /d /s /c` on Windows), so for Toad, and only there, each word of
// `"<conductor> run"` is quoted for that shell, once: a conductor path with
// spaces, quotes or `$` must arrive as one word. The rules for Windows live
// in acp-wire/src/windows-command-line.ts (docs/platforms.md).

import { escapeArgumentForCmd, quoteProgramForCmd } from "../../../acp-wire/src/windows-command-line.js";

export type ShellKind = "posix" | "cmd";

export function shellOf(platform: NodeJS.Platform): ShellKind {
  return platform === "win32" ? "cmd" : "posix";
}

/** One word for `/bin/sh -c`: single quotes, each `'` written as `'\''`. */
export function quotePosix(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The words joined as a command line for `shell`; the first is the program. */
export function commandLine(words: readonly string[], shell: ShellKind): string {
  if (shell === "posix") return words.map(quotePosix).join(" ");
  const [program, ...args] = words;
  return [quoteProgramForCmd(program ?? ""), ...args.map(escapeArgumentForCmd)].join(" ");
}

/** How the conductor is run: a program, its leading arguments (a runtime and a script, or one binary), and variables only it gets. */
export interface ConductorProgram {
  program: string;
  args: readonly string[];
  /** Set for the conductor alone, in the command line itself (ELECTRON_RUN_AS_NODE for VS Code's executable). */
  env?: Readonly<Record<string, string>>;
}

/** The `<conductor> run` string Toad hands to its shell. */
export function conductorRunCommand(conductor: ConductorProgram, shell: ShellKind): string {
  return envPrefix(conductor.env ?? {}, shell) + commandLine([conductor.program, ...conductor.args, "run"], shell);
}

/**
 * Variables for the one command: `NAME=value cmd` in sh; `set "NAME=value"&& cmd`
 * in cmd.exe (the quotes keep the value free of the space before `&&`). Only
 * plain names and values: nothing here needs more, and they need no quoting.
 */
function envPrefix(env: Readonly<Record<string, string>>, shell: ShellKind): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || !/^[A-Za-z0-9_.-]*$/.test(value)) throw new Error(`cannot set ${name}=${value} in a command line`);
      return shell === "posix" ? `${name}=${value} ` : `set "${name}=${value}"&& `;
    })
    .join("");
}

/**
 * Toad's arguments before `--serve --port N --host H` (the host adds those,
 * with its private port): `acp "<conductor> run"`, quoted for `shell`. No
 * project: Toad's serve mode drops it, and gets it as its working directory.
 */
export function toadArgs(conductor: ConductorProgram, shell: ShellKind): string[] {
  return ["acp", conductorRunCommand(conductor, shell)];
}

/**
 * The built-in chat's arguments before `--serve --port N --host H`: the
 * conductor's `run` as a program, its arguments and its own variables, each
 * one argument as it is (`--name=value`, so a value starting with `-` stays a
 * value), and the project.
 */
export function builtinChatArgs(conductor: ConductorProgram, projectDir: string): string[] {
  return [
    "acp",
    `--agent-program=${conductor.program}`,
    ...[...conductor.args, "run"].map((arg) => `--agent-arg=${arg}`),
    ...Object.entries(conductor.env ?? {}).map(([name, value]) => `--agent-env=${name}=${value}`),
    "--project-dir",
    projectDir,
  ];
}
