// The panel's one error type, in a module of its own so that the lifecycle
// (panel-lifecycle.ts) and the launch plan (panel-launch.ts) share it without
// importing each other.

/** An error shown in the panel as is, with optional detail (log lines). */
export class PanelError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}
