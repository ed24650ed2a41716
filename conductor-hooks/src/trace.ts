// --trace FILE: one JSON line per message per hop (time, hop, direction,
// message), so every hop can be observed. Lines on the wire are
// already JSON, so they are spliced in as they are, not re-encoded.

import * as fs from "node:fs";
import type { WireMessage } from "../../acp-wire/src/index.js";

export class Trace {
  private readonly out: fs.WriteStream;

  constructor(file: string) {
    this.out = fs.createWriteStream(file, { flags: "a", mode: 0o600 });
  }

  record(hop: string, direction: "in" | "out", message: string | Buffer | WireMessage): void {
    const json = typeof message === "string" || Buffer.isBuffer(message) ? message.toString().trimEnd() : JSON.stringify(message);
    this.out.write(`{"time":"${new Date().toISOString()}","hop":${JSON.stringify(hop)},"direction":"${direction}","message":${json}}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(resolve));
  }
}
