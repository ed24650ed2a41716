// `npm start`: installs the locked dependencies (fresh clone), builds and packages
// the extension, then runs the demo (test/harness/start.ts, which installs
// code-server once). One line per step; the tools' output goes to the
// setup log (scripts/steps.mjs), printed only when a step fails.
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureDependencies } from "./ensure-deps.mjs";
import { NPM, REPO, startLog, step } from "./steps.mjs";

startLog();
await ensureDependencies();
await step("Building the extension (npm run package)", NPM.command, ["run", "package"], { shell: NPM.shell });
// In this process, so that Ctrl+C reaches one program that stops what the demo started.
await import(pathToFileURL(path.join(REPO, "out", "test", "harness", "start.js")).href);
