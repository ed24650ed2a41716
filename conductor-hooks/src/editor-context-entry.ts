#!/usr/bin/env node
// symposium-editor-context's entry: only Node's own modules before the
// compile cache is on (compile-cache.ts), then the program (editor-context-cli.ts).

import { enableCompileCache } from "./compile-cache.js";

enableCompileCache(process.env);
await import("./editor-context-cli.js");
