// A deliberately small conductor, written for tests only, that runs one proxy
// process in front of one agent process and speaks a chosen proxy-chain
// dialect to the proxy (the Proxy Chains rules in docs/proxy.md). It lets the proxy be tested under both
// dialects independently of the project's own conductor.

import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { LineCollectorSink, startNode, type RunningProcess } from "./processes.js";

type Json = Record<string, unknown>;
interface Origin {
  peer: "client" | "agent" | "proxy";
  id: unknown;
}

export class ScriptedConductor {
  readonly proxy: RunningProcess;
  readonly agent: RunningProcess;
  /** Every message the proxy sent, as parsed. */
  readonly fromProxy: Json[] = [];
  readonly clientStream: Stream;
  private toClient!: ReadableStreamDefaultController<AnyMessage>;
  private nextId = 1000;
  private sentToProxy = new Map<number, Origin>();
  private sentToAgent = new Map<number, Origin>();
  private sentToClient = new Map<number, Origin>();

  constructor(
    private readonly dialect: "proxy" | "_proxy",
    proxyScript: string,
    agentScript: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.proxy = startNode(proxyScript, [], env);
    this.agent = startNode(agentScript, [], env);
    new LineCollectorSink(this.proxy.child.stdout!, (message) => this.onProxy(message));
    new LineCollectorSink(this.agent.child.stdout!, (message) => this.onAgent(message));
    const readable = new ReadableStream<AnyMessage>({ start: (controller) => void (this.toClient = controller) });
    const writable = new WritableStream<AnyMessage>({ write: (message) => this.onClient(message) });
    this.clientStream = { readable, writable };
  }

  async close(): Promise<void> {
    this.proxy.child.stdin!.end();
    this.agent.child.stdin!.end();
    await Promise.all([this.proxy.exited, this.agent.exited]);
  }

  private send(target: RunningProcess, message: Json): void {
    target.child.stdin!.write(JSON.stringify(message) + "\n");
  }

  private request(target: "proxy" | "agent" | "client", message: Json, origin: Origin): void {
    const id = this.nextId++;
    const map = target === "proxy" ? this.sentToProxy : target === "agent" ? this.sentToAgent : this.sentToClient;
    map.set(id, origin);
    const out = { ...message, id };
    if (target === "client") this.toClient.enqueue(out as unknown as AnyMessage);
    else this.send(target === "proxy" ? this.proxy : this.agent, out);
  }

  private respond(origin: Origin, message: Json): void {
    const out = { ...message, id: origin.id };
    if (origin.peer === "client") this.toClient.enqueue(out as unknown as AnyMessage);
    else this.send(origin.peer === "proxy" ? this.proxy : this.agent, out);
  }

  private onClient(message: Json): void {
    if (typeof message.method !== "string") return this.respond(this.sentToClient.get(message.id as number)!, message);
    const method = message.method === "initialize" ? `${this.dialect}/initialize` : message.method;
    if ("id" in message) this.request("proxy", { ...message, method }, { peer: "client", id: message.id });
    else this.send(this.proxy, { ...message, method });
  }

  private onProxy(message: Json): void {
    this.fromProxy.push(message);
    if (typeof message.method !== "string") return this.respond(this.sentToProxy.get(message.id as number)!, message);
    if (message.method === `${this.dialect}/successor`) {
      const inner = message.params as Json;
      const plain = { jsonrpc: "2.0", method: inner.method, params: inner.params };
      if ("id" in message) this.request("agent", plain, { peer: "proxy", id: message.id });
      else this.send(this.agent, plain);
      return;
    }
    if ("id" in message) this.request("client", message, { peer: "proxy", id: message.id });
    else this.toClient.enqueue(message as unknown as AnyMessage);
  }

  private onAgent(message: Json): void {
    if (typeof message.method !== "string") return this.respond(this.sentToAgent.get(message.id as number)!, message);
    const envelope = { jsonrpc: "2.0", method: `${this.dialect}/successor`, params: { method: message.method, params: message.params } };
    if ("id" in message) this.request("proxy", envelope, { peer: "agent", id: message.id });
    else this.send(this.proxy, envelope);
  }
}
