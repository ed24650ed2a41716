#!/usr/bin/env node
// symposium-conductor's entry: only Node's own modules before the compile
// cache is on (compile-cache.ts), then the program (cli.ts), whose `run`
// spawns the agent before it loads the rest of the conductor.

import { enableCompileCache } from "./compile-cache.js";

enableCompileCache(process.env);
await import("./cli.js");
