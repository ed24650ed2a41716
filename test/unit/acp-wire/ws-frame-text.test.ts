// A websocket message's text whichever shape `ws` hands it over in (its
// binaryType): the page and the tests read every frame through frameText.
import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { WebSocket, WebSocketServer } from "ws";
import { frameText } from "../../../acp-wire/src/index.js";

const TEXT = `{"type":"event","text":"héllo ✓ 𝄞"}`;

describe("frameText", () => {
  for (const binaryType of ["nodebuffer", "arraybuffer", "fragments"] as const) {
    it(`reads a message handed over as ${binaryType} as its UTF-8 text`, async () => {
      const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
      await new Promise<void>((resolve) => server.once("listening", resolve));
      const { port } = server.address() as { port: number };
      // Sent in two fragments, so that "fragments" really hands over a list.
      server.on("connection", (socket) => {
        const bytes = Buffer.from(TEXT);
        socket.send(bytes.subarray(0, 7), { fin: false });
        socket.send(bytes.subarray(7), { fin: true });
      });
      const client = new WebSocket(`ws://127.0.0.1:${port}`);
      client.binaryType = binaryType;
      try {
        const text = await new Promise<string>((resolve) => client.once("message", (data) => resolve(frameText(data))));
        assert.equal(text, TEXT);
      } finally {
        client.terminate();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  }
});
