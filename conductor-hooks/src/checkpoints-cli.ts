// `symposium-conductor checkpoints list | diff <turn> | restore <turn>`: the
// turns the conductor recorded for a project (docs/checkpoints.md), for Toad
// and terminal users. The answer goes to stdout; logs to stderr.

import * as path from "node:path";
import { UsageError, parseCommandLine, printLine, type Logger } from "../../acp-wire/src/index.js";
import { CHECKPOINT_ENV, CheckpointError, CheckpointStore, describeState, settingsFromEnvironment, type TurnRecord } from "../../checkpoints/src/index.js";
import { defaultConfigPath } from "./config.js";

export const CHECKPOINTS_USAGE =
  "checkpoints list | checkpoints diff <turn> | checkpoints restore <turn>, with [--project DIR] (default: the current folder) [--json]";

export async function checkpointsCommand(args: string[], log: Logger): Promise<number> {
  const { values, positionals } = parseArgs(args);
  const [action, turn, ...extra] = positionals;
  if (extra.length > 0 || (action === "list") !== (turn === undefined)) throw new UsageError(CHECKPOINTS_USAGE);
  const env = { ...process.env, [CHECKPOINT_ENV.off]: "" }; // reading and undoing stay possible with recording turned off
  const store = await CheckpointStore.create(settingsFromEnvironment(env, path.dirname(defaultConfigPath(env)), log)!);
  if (store === null) return 1;
  const project = path.resolve(values.project ?? process.cwd());
  try {
    switch (action) {
      case "list":
        return list(store, project, values.json === true, log);
      case "diff":
        process.stdout.write(await store.diff(project, turn!));
        return 0;
      case "restore":
        return await restore(store, project, turn!, values.json === true);
      default:
        throw new UsageError(CHECKPOINTS_USAGE);
    }
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    log(error.message);
    return 1;
  }
}

function list(store: CheckpointStore, project: string, json: boolean, log: Logger): number {
  const turns = store.list(project);
  for (const name of turns.damaged) log(`a damaged record was left out: ${name}`);
  if (json) return printLine(JSON.stringify(turns.records));
  if (turns.records.length === 0) log(`no turns recorded for ${turns.project}`);
  for (const record of turns.records) printLine(describeTurn(record));
  return 0;
}

/** One line per turn: id, when, what happened, the prompt. */
function describeTurn(record: TurnRecord): string {
  const files = record.roots.flatMap((root) => root.files.map((file) => file.path));
  const shown = files.length > 0 ? ` (${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""})` : "";
  return `${record.id}  ${record.state.padEnd(7)}  ${describeState(record)}${shown}  ${JSON.stringify(record.prompt)}`;
}

async function restore(store: CheckpointStore, project: string, turn: string, json: boolean): Promise<number> {
  const report = await store.restore(project, turn);
  if (json) printLine(JSON.stringify({ restored: report.restored, conflicts: report.conflicts, skipped: report.skipped }));
  else {
    for (const file of report.restored) printLine(`restored  ${file}`);
    for (const conflict of report.conflicts) printLine(`conflict  ${conflict.path}: ${conflict.reason} (left as it is)`);
    for (const file of report.skipped) printLine(`skipped   ${file.path}: ${file.reason} (never stored, left as it is)`);
  }
  return report.conflicts.length > 0 ? 1 : 0;
}

function parseArgs(args: string[]) {
  try {
    return parseCommandLine({ args, allowPositionals: true, options: { project: { type: "string" }, json: { type: "boolean" } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${CHECKPOINTS_USAGE})`);
  }
}
