// Runs node's test runner on the compiled test files only. (Given a folder,
// Node 20's runner would also run every .js file under test/, fixtures too;
// shell globs are not portable to Windows' cmd.)
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const root = join("out", "test");
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith(".test.js"))
  .filter((file) => !process.env.TEST_FILTER || file.includes(process.env.TEST_FILTER))
  .map((file) => join(root, file))
  .sort();
const result = spawnSync(process.execPath, ["--test", "--test-concurrency=2", "--test-timeout=300000", ...process.argv.slice(2), ...files], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
