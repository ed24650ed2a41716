// `npm run bench`'s first step: the Rust conductor's release build, which the
// benchmarks time beside ours (scripts/install-rust-peers.sh --release; cached,
// so only the first bench on a machine builds it). Where it cannot be built
// (no cargo, no bash, as on a bare Windows) the bench still runs and its
// Rust-arm figures say the conductor is not installed.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("install-rust-peers.sh", import.meta.url));
const result = spawnSync("bash", [script, "--release"], { stdio: ["ignore", "ignore", "inherit"] });
if (result.status !== 0) {
  process.stderr.write(
    `bench: the Rust conductor's release build is not available (${result.error ? result.error.message : `install-rust-peers.sh exited with ${result.status}`}); the figures with a Rust arm will say so\n`,
  );
}
