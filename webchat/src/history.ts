// This workspace's kept conversations (docs/webchat.md: history): one file
// per conversation, its first line the entry (id, title from the first
// prompt, times, the agent's session id), then its transcript events, one
// JSON a line. Private (files 0600 in a 0700 folder; on Windows the user's
// profile folder's permissions apply) and bounded: at most
// HISTORY_LIMITS.conversations files, each at most conversationBytes (the
// oldest events dropped), all at most totalBytes (the oldest files dropped).

import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Logger } from "../../acp-wire/src/index.js";
import type { HistoryEntry, TranscriptEvent } from "../page/protocol.js";

export const HISTORY_LIMITS = { conversations: 50, conversationBytes: 1024 * 1024, totalBytes: 16 * 1024 * 1024 } as const;
/** How much of a file `list` reads for its first line. */
const HEAD_BYTES = 4096;
const TITLE_CHARS = 120;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const SUFFIX = ".jsonl";

export interface KeptConversation extends HistoryEntry {
  createdAt: number;
  /** The agent's session id: what session/load and session/resume take. */
  agentSessionId?: string;
}

/** `<stateDir>/history/<hash of the project's path>`; stateDir defaults to ~/.symposium. */
export function historyDir(projectDir: string, stateDir = path.join(os.homedir(), ".symposium")): string {
  const hash = createHash("sha256").update(path.resolve(projectDir)).digest("hex").slice(0, 16);
  return path.join(stateDir, "history", hash);
}

export function newHistoryId(): string {
  return randomBytes(12).toString("hex");
}

export function isHistoryId(id: unknown): id is string {
  return typeof id === "string" && ID_PATTERN.test(id);
}

/** A title from the first prompt's text: one line, at most TITLE_CHARS. */
export function titleOf(prompt: string): string {
  const line = prompt.replace(/\s+/g, " ").trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

export class HistoryStore {
  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  /** Newest first. A file that cannot be read is left out (and logged). */
  list(): HistoryEntry[] {
    return this.files()
      .map((file) => this.head(file))
      .filter((entry): entry is KeptConversation => entry !== undefined)
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map(({ id, title, updatedAt }) => ({ id, title, updatedAt }));
  }

  /** The entry and its events, or undefined when there is no such conversation. */
  load(id: string): { entry: KeptConversation; events: TranscriptEvent[] } | undefined {
    if (!isHistoryId(id)) return undefined;
    let text: string;
    try {
      text = fs.readFileSync(this.file(id), "utf8");
    } catch {
      return undefined;
    }
    const [head, ...lines] = text.split("\n").filter((line) => line !== "");
    try {
      return { entry: JSON.parse(head!) as KeptConversation, events: lines.map((line) => JSON.parse(line) as TranscriptEvent) };
    } catch (error) {
      this.log(`history ${id} is damaged (${(error as Error).message}): not shown`);
      return undefined;
    }
  }

  /**
   * Writes the conversation (a new file renamed over the old), keeping the
   * newest events that fit conversationBytes, then drops the oldest files
   * beyond the limits.
   */
  save(entry: KeptConversation, eventJson: readonly string[]): void {
    if (!isHistoryId(entry.id)) throw new Error(`not a history id: ${String(entry.id)}`);
    const head = JSON.stringify(entry);
    let room = HISTORY_LIMITS.conversationBytes - Buffer.byteLength(head) - 1;
    let first = eventJson.length;
    while (first > 0 && room - Buffer.byteLength(eventJson[first - 1]!) - 1 >= 0) room -= Buffer.byteLength(eventJson[--first]!) + 1;
    const body = [head, ...eventJson.slice(first)].join("\n") + "\n";
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700); // mkdir's mode yields to the umask and leaves an existing folder as it was
    const temporary = path.join(this.dir, `.${entry.id}.${process.pid}.tmp`);
    fs.writeFileSync(temporary, body, { mode: 0o600 });
    fs.renameSync(temporary, this.file(entry.id));
    this.prune(entry.id);
  }

  delete(id: string): boolean {
    if (!isHistoryId(id)) return false;
    try {
      fs.rmSync(this.file(id));
      return true;
    } catch {
      return false;
    }
  }

  private prune(keep: string): void {
    const files = this.files()
      .map((file) => ({ file, stat: fs.statSync(file, { throwIfNoEntry: false }) }))
      .filter((each): each is { file: string; stat: fs.Stats } => each.stat !== undefined)
      .sort((a, b) => b.stat.mtimeMs - a.stat.mtimeMs);
    let total = 0;
    files.forEach(({ file, stat }, index) => {
      total += stat.size;
      const mine = path.basename(file) === `${keep}${SUFFIX}`;
      if (!mine && (index >= HISTORY_LIMITS.conversations || total > HISTORY_LIMITS.totalBytes)) {
        fs.rmSync(file, { force: true });
        total -= stat.size;
      }
    });
  }

  private files(): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((name) => name.endsWith(SUFFIX) && isHistoryId(name.slice(0, -SUFFIX.length))).map((name) => path.join(this.dir, name));
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}${SUFFIX}`);
  }

  private head(file: string): KeptConversation | undefined {
    try {
      const fd = fs.openSync(file, "r");
      try {
        const buffer = Buffer.alloc(HEAD_BYTES);
        const read = fs.readSync(fd, buffer, 0, HEAD_BYTES, 0);
        const text = buffer.subarray(0, read).toString("utf8");
        const end = text.indexOf("\n");
        return JSON.parse(end < 0 ? text : text.slice(0, end)) as KeptConversation;
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      this.log(`cannot read the history file ${file}: ${(error as Error).message}`);
      return undefined;
    }
  }
}
