// MCP over stdio with this repository's one framer (acp-wire's LineSplitter)
// instead of the SDK's StdioServerTransport, which closes the whole session
// on a line over 10 MB and copies its buffer on every chunk. Here a line up to
// MAX_STDIN_LINE_BYTES is framed in linear time and handed to the server, so
// an oversized proposal gets the tool's own clear error; a longer line is
// dropped as it streams (never held) and logged; a line that is not a
// JSON-RPC message is skipped (onerror) and the session goes on.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Readable, Writable } from "node:stream";
import { LineWriter, readLines } from "../../acp-wire/src/index.js";

/** The longest line read from the agent: past every limit a tool sets, so those limits give the errors. */
export const MAX_STDIN_LINE_BYTES = 64 * 1024 * 1024;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly writer: LineWriter;
  private closed = false;

  constructor(
    private readonly input: Readable = process.stdin,
    output: Writable = process.stdout,
  ) {
    this.writer = new LineWriter(output);
  }

  async start(): Promise<void> {
    void readLines(this.input, MAX_STDIN_LINE_BYTES, {
      onLine: (line) => this.receive(line),
      onOversizedLine: (bytes) => this.onerror?.(new Error(`a ${bytes}-byte message was dropped (limit ${MAX_STDIN_LINE_BYTES})`)),
    }).then(() => void this.close());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.writer.writeLine(JSON.stringify(message))) await new Promise<void>((resolve) => this.writer.onceDrained(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.pause();
    this.onclose?.();
  }

  private receive(line: Buffer): void {
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line.toString("utf8")));
    } catch (error) {
      this.onerror?.(new Error(`skipped a line that is not a JSON-RPC message: ${(error as Error).message.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(message);
  }
}
