// The agent's file access (ACP fs/read_text_file and fs/write_text_file),
// confined to the project directory: a path outside it, or one that leaves it
// through `..` or a symlink, is refused with a JSON-RPC error.

import * as fs from "node:fs/promises";
import * as path from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";

export class ProjectFiles {
  private constructor(private readonly root: string) {}

  /** `projectDir` must exist; symlinks in it are resolved once, here. */
  static async open(projectDir: string): Promise<ProjectFiles> {
    return new ProjectFiles(await fs.realpath(projectDir));
  }

  async read(requested: string, line?: number | null, limit?: number | null): Promise<string> {
    const file = await this.confine(requested, "read");
    const text = await fs.readFile(file, "utf8").catch((error: unknown) => {
      throw notFound(requested, error);
    });
    if (line == null && limit == null) return text;
    const lines = text.split("\n");
    const start = Math.max(0, (line ?? 1) - 1);
    return lines.slice(start, limit == null ? undefined : start + limit).join("\n");
  }

  async write(requested: string, content: string): Promise<void> {
    const file = await this.confine(requested, "write");
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content, "utf8");
  }

  /**
   * The real path to use for `requested`, or a RequestError. The file (or,
   * for a new file, its nearest existing ancestor) is resolved through every
   * symlink, and the result must still lie inside the project.
   */
  private async confine(requested: string, access: "read" | "write"): Promise<string> {
    if (typeof requested !== "string" || !path.isAbsolute(requested)) throw refusal(requested, "the path must be absolute");
    const lexical = path.resolve(requested);
    if (!this.contains(lexical)) throw refusal(requested, "it is outside the project directory");
    let existing = lexical;
    const missing: string[] = [];
    for (;;) {
      try {
        const real = await fs.realpath(existing);
        const resolved = path.join(real, ...missing.reverse());
        if (!this.contains(resolved)) throw refusal(requested, "it leads outside the project directory through a symlink");
        return resolved;
      } catch (error) {
        if (error instanceof RequestError) throw error;
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || access === "read" || existing === this.root) throw notFound(requested, error);
        missing.push(path.basename(existing));
        existing = path.dirname(existing);
      }
    }
  }

  private contains(candidate: string): boolean {
    const relative = path.relative(this.root, candidate);
    return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
  }
}

function refusal(requested: string, why: string): RequestError {
  return RequestError.invalidParams({ path: requested }, `access to ${requested} refused: ${why}`);
}

function notFound(requested: string, error: unknown): RequestError {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return RequestError.resourceNotFound(requested);
  return RequestError.internalError({ path: requested }, `cannot access ${requested}: ${(error as Error).message}`);
}
