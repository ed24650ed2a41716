// The ACP wire toolkit: framing, JSON-RPC, envelopes and proxy dialects, ACP
// constants and limits, child processes, logging. Everything that speaks ACP
// over bytes in this repository (proxy, conductor, chat server, panel host,
// benchmarks) takes these from here; nothing here knows about editor context.

export { LineSplitter, NEWLINE, type LineHandler } from "./line-splitter.js";
export { LineWriter, readLines } from "./ndjson-streams.js";
export * from "./jsonrpc.js";
export { idText } from "./exact-id.js";
export * from "./acp-constants.js";
export * from "./splice.js";
export * from "./envelope.js";
export * from "./proxy-dialect.js";
export * from "./processes.js";
export { printLine, runCli, describeError, UsageError, parseCommandLine, onStopSignal, stopSignal, STOP_SIGNALS } from "./cli-run.js";
export { StderrTail, followStderr } from "./stderr-tail.js";
export { runForOutput, type RunForOutputOptions } from "./run-for-output.js";
export { stderrLogger, debugLogger, type Logger } from "./log.js";
export { packageVersion } from "./version.js";
export { frameText } from "./ws-frame.js";
