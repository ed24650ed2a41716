// The package version, read from the nearest package.json above this module,
// so it is right whether this runs from out/ (tsc) or dist/ (bundled).

import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export function packageVersion(moduleUrl: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const candidate = path.join(dir, "package.json");
    if (fs.existsSync(candidate)) {
      const manifest = JSON.parse(fs.readFileSync(candidate, "utf8")) as { version?: string };
      if (manifest.version) return manifest.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}
