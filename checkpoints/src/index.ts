// The checkpoint store's public face (the conductor's hook and CLI, VS Code's commands).

export {
  CheckpointStore,
  CheckpointError,
  CHECKPOINT_ENV,
  checkpointsDirectory,
  DEFAULT_SETTINGS,
  describeState,
  realProject,
  settingsFromEnvironment,
} from "./store.js";
export type { CheckpointSettings, ProjectTurns, RestoreReport, TurnInProgress, TurnRequest } from "./store.js";
export type { TurnRecord, TurnRoot, TurnState } from "./turn-record.js";
export type { ChangedFile, ChangeStatus, SkippedFile } from "./shadow-repo.js";
export { PROMPT_CHARS } from "./turn-record.js";
