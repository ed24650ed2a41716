// What each conversation runs. Either a command line for the shell, as Toad
// takes it (`acp "<command>"`: a person's own), or a program and its
// arguments, run without a shell (`--agent-program`, `--agent-arg`,
// `--agent-env`: how the extension passes its conductor, so no path is ever
// quoted into a string and split again). Only the second can be our
// conductor, run in process and asked for the agent picker's list
// (agent-catalog.ts).

import { quote } from "shell-quote";

export type AgentCommand =
  | { kind: "shell"; line: string }
  /** `env`: variables for this program alone (ELECTRON_RUN_AS_NODE for VS Code's executable), over the agents' environment. */
  | { kind: "program"; program: string; args: string[]; env: Record<string, string> };

/** The command for logs and messages: the line as given, or the words as a POSIX shell would read them back (to copy). */
export function commandText(command: AgentCommand): string {
  if (command.kind === "shell") return command.line;
  const env = Object.entries(command.env).map(([name, value]) => `${name}=${quote([value])}`);
  return [...env, quote([command.program, ...command.args])].join(" ");
}
