// One ACP exchange in memory at start (initialize, session/new, a prompt
// answered with a session/update), between an SDK client and an SDK agent in
// this process. The SDK compiles its message validators on first use; done
// here, the first prompt of the first conversation does not wait for that
// (it took the server several ms: docs/benchmarks-notes.md, the first token of a chat session).

import { agent, client, ndJsonStream } from "@agentclientprotocol/sdk";

export async function warmUpAcp(): Promise<void> {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const agentSide = agent()
    .onRequest("initialize", () => ({ protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: "warm-up", version: "0" } }))
    .onRequest("session/new", () => ({ sessionId: "warm-up" }))
    .onRequest("session/prompt", async ({ params, client: peer }) => {
      const update = { sessionUpdate: "agent_message_chunk" as const, content: { type: "text" as const, text: "warm" } };
      await peer.notify("session/update", { sessionId: params.sessionId, update });
      return { stopReason: "end_turn" as const };
    })
    .connect(ndJsonStream(toClient.writable, toAgent.readable));
  const connection = client({ name: "warm-up" })
    .onNotification("session/update", () => {})
    .connect(ndJsonStream(toAgent.writable, toClient.readable));
  try {
    await connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    const { sessionId } = await connection.agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
    await connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "warm" }] });
  } finally {
    connection.close();
    agentSide.close();
  }
}
