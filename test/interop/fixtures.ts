// The interop tests' own fixtures, compiled beside the other test fixtures.

import * as path from "node:path";
import { OUT_DIR } from "../support/processes.js";

/** The recording agent that answers the whole protocol table (test/fixtures/interop-agent.ts). */
export const INTEROP_AGENT = path.join(OUT_DIR, "test", "fixtures", "interop-agent.js");
/** Records each line between a conductor and one component (test/fixtures/wire-tap.ts). */
export const WIRE_TAP = path.join(OUT_DIR, "test", "fixtures", "wire-tap.js");
