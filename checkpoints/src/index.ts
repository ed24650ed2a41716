// The checkpoint store's public face (the conductor's hook and CLI, VS Code's commands).

export { CheckpointStore, CheckpointError, describeState, realProject } from "./store.js";
export { CHECKPOINT_ENV, checkpointsDirectory, DEFAULT_SETTINGS, settingsFromEnvironment } from "./settings.js";
export type { CheckpointSettings } from "./settings.js";
export type { ProjectTurns, RestoreReport, TurnInProgress, TurnRequest } from "./store.js";
export type { TurnRecord, TurnRoot, TurnState } from "./turn-record.js";
export type { ChangedFile, ChangeStatus, SkippedFile } from "./shadow-repo.js";
export { PROMPT_CHARS } from "./turn-record.js";
