// The core every way of running the proxy shares: given a client→agent
// message, return it with a fresh <editor-context> block in front of its
// prompt, or return null to forward it unchanged.

import { SESSION_PROMPT, isObject, isRequest, type WireMessage } from "../../acp-wire/src/index.js";
import { OPEN_TAG, formatEditorContext, type FormatOptions } from "./context-block.js";
import { STATE_FILE_ENV, type EditorState } from "../../editor-state/src/index.js";
import { StateFileReader, type StateFileReaderOptions, type StateReadResult } from "./state-file.js";
import { UnsavedFiles } from "./unsaved-files.js";
import { SESSION_SETUP_METHODS, withEditorTools, type McpServerEntry } from "./editor-tools-offer.js";

/**
 * A prompt whose `_meta` holds this key with the value `false` goes out
 * without a block (the chat's "skip context for this prompt" toggle);
 * docs/context-block.md.
 */
export const EDITOR_CONTEXT_META_KEY = "symposium.dev/editorContext";

/** The only methods `rewrite` may change: messages with any other method can pass unparsed. */
export const INJECTED_METHODS: ReadonlySet<string> = new Set([SESSION_PROMPT, ...SESSION_SETUP_METHODS]);

export interface EditorContextInjectorOptions extends StateFileReaderOptions, FormatOptions {
  /** State file path; defaults to $SYMPOSIUM_EDITOR_STATE_FILE. */
  stateFile?: string;
  /** Told why a prompt went out without context (for a log). */
  onSkip?: (reason: string) => void;
  /** Told why a read of a file with unsaved changes went to the client after all (for a log). */
  onUnsavedNote?: (note: string) => void;
  /** The editor's MCP server to add to each session's mcpServers (editor-tools-offer.ts); none when absent. */
  editorTools?: McpServerEntry | null;
}

export class EditorContextInjector {
  private readonly reader: StateFileReader;
  /** Answers the agent's file requests that the editor's unsaved changes decide (one state file read for both). */
  readonly unsavedFiles: UnsavedFiles;

  constructor(private readonly options: EditorContextInjectorOptions = {}) {
    const stateFile = options.stateFile ?? process.env[STATE_FILE_ENV];
    this.reader = new StateFileReader(stateFile || undefined, options);
    this.unsavedFiles = new UnsavedFiles(this.reader.path, () => this.reader.read(), options.onUnsavedNote);
  }

  get stateFile(): string | undefined {
    return this.reader.path;
  }

  /** How long after its last write the state file still counts (the reader's limit). */
  get maxAgeMs(): number {
    return this.reader.maxAgeMs;
  }

  /** The block a prompt sent now would carry, or why there would be none. */
  currentBlock(): { ok: true; block: string; read: StateReadResult } | { ok: false; reason: string } {
    const read = this.reader.read();
    if (!read.ok) return read;
    // The reader hands back the same state while the file is unchanged: format it once.
    if (this.formatted?.state !== read.state) this.formatted = { state: read.state, block: formatEditorContext(read.state, this.options) };
    return { ok: true, block: this.formatted.block, read };
  }

  private formatted: { state: EditorState; block: string } | null = null;

  /** The editor's MCP server added to a session's mcpServers, unless the state file says the user turned the tools off. */
  private withEditorTools(message: WireMessage): WireMessage | null {
    const entry = this.options.editorTools;
    if (!entry) return null;
    if (this.reader.read().editorTools?.enabled === false) {
      this.options.onSkip?.("the editor's tools are turned off in VS Code (symposium.editorTools.enabled)");
      return null;
    }
    return withEditorTools(message, entry);
  }

  /**
   * A copy of `message` with the block prepended (a prompt), or with the editor's MCP server
   * added (a session/new, load or resume); null when there is nothing to change.
   */
  rewrite(message: WireMessage): WireMessage | null {
    if (isRequest(message) && SESSION_SETUP_METHODS.has(message.method)) return this.withEditorTools(message);
    if (!isRequest(message) || message.method !== SESSION_PROMPT) return null;
    const params = message.params;
    if (!isObject(params) || !Array.isArray(params.prompt)) return null;
    if (isObject(params._meta) && params._meta[EDITOR_CONTEXT_META_KEY] === false) {
      this.options.onSkip?.("the prompt asked for no editor context");
      return null;
    }
    if (startsWithBlock(params.prompt)) {
      // Another editor-context proxy earlier in the chain (or the conductor's hook) already added one.
      this.options.onSkip?.("the prompt already starts with an editor-context block");
      return null;
    }
    const current = this.currentBlock();
    if (!current.ok) {
      this.options.onSkip?.(current.reason);
      return null;
    }
    const block = { type: "text", text: current.block };
    const prompt: readonly unknown[] = params.prompt;
    return { ...message, params: { ...params, prompt: [block, ...prompt] } };
  }
}

/** Injection is idempotent: a prompt whose first block is an editor-context block gets no second one. */
function startsWithBlock(prompt: unknown[]): boolean {
  const first = prompt[0];
  return isObject(first) && first.type === "text" && typeof first.text === "string" && first.text.startsWith(OPEN_TAG);
}
