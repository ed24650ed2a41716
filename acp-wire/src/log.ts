// CLIs log to stderr only: stdout is the protocol.

export type Logger = (message: string) => void;

export function stderrLogger(name: string): Logger {
  return (message) => {
    process.stderr.write(`[${name}] ${message}\n`);
  };
}

/** Debug lines appear only with SYMPOSIUM_LOG=debug. */
export function debugLogger(name: string): Logger {
  if (process.env.SYMPOSIUM_LOG !== "debug") return () => {};
  return stderrLogger(name);
}
