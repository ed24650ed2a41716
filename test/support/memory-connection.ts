// A router connection over in-memory streams, for unit tests of the conductor's
// router and its components: what the router sends to it is kept and read back
// as lines or parsed messages.

import { PassThrough, Writable } from "node:stream";
import { LineWriter, type WireMessage } from "../../acp-wire/src/index.js";
import { Connection, type ConnectionRole } from "../../conductor-hooks/src/connections.js";

export class MemoryConnection extends Connection {
  protected readonly input = new PassThrough();
  protected readonly writer: LineWriter;
  private text = "";

  constructor(name: string, role: ConnectionRole) {
    super(name, role, null);
    this.writer = new LineWriter(new Writable({ write: (chunk: Buffer, _encoding, done) => ((this.text += chunk.toString()), done()) }));
  }

  /** The lines received since the last call, as they came. */
  takeLines(): string[] {
    const lines = this.text.split("\n").filter((line) => line !== "");
    this.text = "";
    return lines;
  }

  /** The messages received since the last call. */
  take(): WireMessage[] {
    return this.takeLines().map((line) => JSON.parse(line) as WireMessage);
  }
}
