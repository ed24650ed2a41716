// The project's files for `@` in the composer (docs/webchat.md), and the
// mentions of a prompt turned into ACP content blocks. The list is bounded:
// `git ls-files` where the project is a git work tree (it honours
// .gitignore), run so that no command the repository's config names runs
// (the project may be an unpacked archive or a shared folder); else a walk
// that skips node_modules and dot-folders, within a folder and a time budget.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { isBelow } from "../../acp-wire/src/confined-path.js";
import type { ProjectFiles } from "./project-files.js";
// One grammar for mentions (`@src/main.rs:2-3`, `@"my notes.md"`), shared with the page's completion.
import { parseMentions, type Mention } from "../page/mention-syntax.js";

/** The most files listed; a larger project lists its first ones (the page says so). */
export const MAX_LISTED_FILES = 5000;
/** The most folders the walk (no git) reads; past them the list is cut (the answer says so). */
export const MAX_WALKED_FOLDERS = 10_000;
/** The largest file embedded in a prompt; a larger one is sent as a link. */
export const MAX_EMBEDDED_BYTES = 256 * 1024;
/** How long the walk (no git) may take; past it the list is cut (the answer says so). */
export const WALK_BUDGET_MS = 1000;
/** A list is reused this long: typing `@` twice does not list twice. */
const FRESH_MS = 5000;
/**
 * Git's settings that would run a command or write in the repository,
 * overridden (`-c` outranks every config file): the file-system monitor
 * (`core.fsmonitor` names a program, or starts git's daemon), hooks (an index
 * write runs post-index-change), the untracked cache (written to the index).
 */
const GIT_SAFE_CONFIG = ["core.fsmonitor=false", `core.hooksPath=${os.devNull}`, "core.untrackedCache=false"];
const SKIPPED_FOLDERS = new Set(["node_modules", ".git", "target", "dist", "out"]);

export interface FileList {
  files: string[];
  truncated: boolean;
}

export class ProjectIndex {
  private cached: { at: number; list: Promise<FileList> } | undefined;

  constructor(private readonly projectDir: string) {}

  list(): Promise<FileList> {
    if (!this.cached || Date.now() - this.cached.at > FRESH_MS) {
      this.cached = {
        at: Date.now(),
        list: gitFiles(this.projectDir)
          .then((files) => files ?? walk(this.projectDir))
          .then(bounded),
      };
    }
    return this.cached.list;
  }
}

/** The list, cut to MAX_LISTED_FILES; `truncated` also when the walk was cut before it. */
function bounded({ files, cut }: { files: string[]; cut: boolean }): FileList {
  return { files: files.slice(0, MAX_LISTED_FILES), truncated: cut || files.length > MAX_LISTED_FILES };
}

/**
 * Tracked and untracked-but-not-ignored files, or null when git is missing or
 * this is no work tree. No shell; no optional lock or index write
 * (GIT_OPTIONAL_LOCKS=0); GIT_SAFE_CONFIG.
 */
function gitFiles(cwd: string): Promise<{ files: string[]; cut: boolean } | null> {
  const config = GIT_SAFE_CONFIG.flatMap((setting) => ["-c", setting]);
  return new Promise((resolve) => {
    execFile(
      "git",
      [...config, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
      { cwd, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" }, maxBuffer: 16 * 1024 * 1024, timeout: 5000, windowsHide: true },
      (error, stdout) => resolve(error ? null : { files: [...new Set(stdout.split("\0").filter((name) => name !== ""))], cut: false }),
    );
  });
}

/**
 * Breadth-first, so a huge tree still lists its top folders; stops past the
 * file bound, after MAX_WALKED_FOLDERS folders or WALK_BUDGET_MS (`cut`: it
 * stopped with folders left unread).
 */
async function walk(root: string): Promise<{ files: string[]; cut: boolean }> {
  const files: string[] = [];
  // Folders found, in order; those before `next` have been read. At most MAX_WALKED_FOLDERS are kept.
  const folders = [""];
  let next = 0;
  let cut = false;
  const deadline = Date.now() + WALK_BUDGET_MS;
  for (; next < folders.length && files.length <= MAX_LISTED_FILES; next++) {
    if (Date.now() > deadline) return { files, cut: true };
    const folder = folders[next]!;
    const entries = await fs.promises.readdir(path.join(root, folder), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const name = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory() && !entry.name.startsWith(".") && !SKIPPED_FOLDERS.has(entry.name)) {
        if (folders.length < MAX_WALKED_FOLDERS) folders.push(name);
        else cut = true;
      } else if (entry.isFile() && files.length <= MAX_LISTED_FILES) files.push(name); // one past the bound: "truncated"
    }
  }
  return { files, cut: cut || next < folders.length };
}

/**
 * The blocks that follow the prompt's text: one per mention naming a file
 * inside the project (others are left as text), a resource with the file's
 * text (or the mentioned lines) when the agent takes embedded context and the
 * text is small, else a resource_link.
 */
export async function mentionBlocks(text: string, projectDir: string, files: ProjectFiles, embed: boolean): Promise<ContentBlock[]> {
  const blocks: ContentBlock[] = [];
  const seen = new Set<string>();
  for (const mention of parseMentions(text).slice(0, 50)) {
    const key = `${mention.path}:${mention.start}-${mention.end}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const block = await mentionBlock(mention, projectDir, files, embed);
    if (block) blocks.push(block);
  }
  return blocks;
}

async function mentionBlock(mention: Mention, projectDir: string, files: ProjectFiles, embed: boolean): Promise<ContentBlock | null> {
  const absolute = insideProject(projectDir, mention.path);
  if (!absolute) return null;
  const stat = await fs.promises.stat(absolute).catch(() => null);
  if (!stat?.isFile()) return null;
  const uri = fileUri(absolute, mention);
  const name = path.basename(absolute);
  if (embed && (mention.start !== undefined || stat.size <= MAX_EMBEDDED_BYTES)) {
    const limit = mention.start === undefined ? null : Math.max(1, (mention.end ?? mention.start) - mention.start + 1);
    const content = await files.read(absolute, mention.start ?? null, limit).catch(() => null);
    if (content !== null && Buffer.byteLength(content) <= MAX_EMBEDDED_BYTES && !content.includes("\0"))
      return { type: "resource", resource: { uri, text: content, mimeType: "text/plain" } };
  }
  return { type: "resource_link", uri, name, size: stat.size };
}

/** The absolute path of `relative` when it names something inside the project, else null. */
export function insideProject(projectDir: string, relative: string): string | null {
  if (path.isAbsolute(relative) || relative.includes("\0")) return null;
  const absolute = path.resolve(projectDir, relative);
  return isBelow(projectDir, absolute) ? absolute : null;
}

/** A file: URI, with the line range as a fragment (`#L10-12`, as editors and GitHub write it). */
function fileUri(absolute: string, mention: Mention): string {
  const url = pathToFileURL(absolute);
  if (mention.start !== undefined)
    url.hash = mention.end !== undefined && mention.end !== mention.start ? `L${mention.start}-${mention.end}` : `L${mention.start}`;
  return url.toString();
}
