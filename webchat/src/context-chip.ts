// The editor-context chip: what the next prompt will carry, read from the
// state file exactly as the editor-context proxy reads it (same reader, same
// block), polled while pages are attached.

import { StateFileReader, formatEditorContext } from "../../editor-context-proxy/src/index.js";
import { STATE_FILE_ENV, editorTargetLabel } from "../../editor-state/src/index.js";
import type { ContextChip } from "../page/protocol.js";

const POLL_MS = 1_000;

export class ContextChipWatcher {
  private readonly reader: StateFileReader;
  private current: ContextChip | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    env: NodeJS.ProcessEnv,
    private readonly onChange: (chip: ContextChip | null) => void,
  ) {
    this.reader = new StateFileReader(env[STATE_FILE_ENV] || undefined);
  }

  get chip(): ContextChip | null {
    return this.current;
  }

  /** Polls while `active` is true; reads once at once. */
  setActive(active: boolean): void {
    if (!this.reader.path) return;
    if (active && this.timer === undefined) {
      this.poll();
      this.timer = setInterval(() => this.poll(), POLL_MS);
      this.timer.unref();
    } else if (!active && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  poll(): void {
    const read = this.reader.read();
    const chip = read.ok ? { label: editorTargetLabel(read.state), block: formatEditorContext(read.state) } : null;
    if (JSON.stringify(chip) === JSON.stringify(this.current)) return;
    this.current = chip;
    this.onChange(chip);
  }
}
