// What the checkpoint store's tests share: a store on real git (failing
// plainly when git is missing), and files written and read in a project.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { CheckpointStore, type CheckpointSettings } from "../../checkpoints/src/index.js";

export async function storeWith(options: CheckpointSettings): Promise<CheckpointStore> {
  const store = await CheckpointStore.create(options);
  assert.ok(store, "git is on PATH");
  return store;
}

/** Writes `file` (relative to `root`), making its folders. */
export function write(root: string, file: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), content);
}

export const read = (root: string, file: string): string => fs.readFileSync(path.join(root, file), "utf8");
