// The panel host's lifecycle (extension/src/panel/panel-lifecycle.ts) outside VS Code:
// the real panel host (dist/symposium-panel-host.mjs with the Toad stand-in and
// the demo agent) started, reconnected to, watched, restarted and stopped through
// the real host client; the clock's heartbeat and deadline are the test's, the view
// and the window record what they are told.

import { strict as assert } from "node:assert";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { afterEach, describe, it } from "node:test";
import getPort from "get-port";
import { isAlive, stopProcessTree } from "../../../acp-wire/src/processes.js";
import type { LaunchSpec } from "../../../panel-host/src/launch-spec.js";
import type { PanelStatus } from "../../../webview/src/panel-messages.js";
import { fetchIdentity, panelHostClient } from "../../../extension/src/panel/panel-host-client.js";
import {
  HEARTBEAT_MS,
  PanelLifecycle,
  READY_TIMEOUT_MS,
  RECONNECTING,
  RESTART_NOTICE,
  RESTARTING,
  RESTRICTED,
  STARTING,
  STOPPED,
  STOPPING,
  TOAD_RELOAD_NOTICE,
  type Clock,
  type HostState,
  type NewLaunch,
} from "../../../extension/src/panel/panel-lifecycle.js";
import { PanelRecord } from "../../../extension/src/panel/panel-record.js";
import { PersistentState } from "../../../extension/src/persistent-state.js";
import { DEMO_AGENT_COMMAND, FAKE_TOAD, PANEL_HOST_CLI } from "../../support/panel-host.js";
import { memoryState } from "../../support/persistent-state.js";
import { eventually, tempDir } from "../../support/processes.js";

/** The heartbeat fires when the test says; `now` moves when the test says; sleeps are real (the host is a real process). */
class TestClock implements Clock {
  private offset = 0;
  readonly ticks = new Map<() => Promise<void>, number>();
  now(): number {
    return Date.now() + this.offset;
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
  every(ms: number, tick: () => Promise<void>): () => void {
    this.ticks.set(tick, ms);
    return () => this.ticks.delete(tick);
  }
  advance(ms: number): void {
    this.offset += ms;
  }
  /** One heartbeat, finished. */
  async beat(): Promise<void> {
    await Promise.all([...this.ticks.keys()].map((tick) => tick()));
  }
}

/**
 * In the environment of every host this file starts, and of its frontend and what that starts: a
 * host that ends before its frontend (killed outright, or its own stop cut short) leaves the
 * frontend in a process group of its own, which stopping the host's pid no longer reaches.
 */
const STARTED_HERE_ENV = "SYMPOSIUM_LIFECYCLE_TEST";
const STARTED_HERE = crypto.randomUUID();
/** Where the records of this file's hosts keep their secrets (panel-record.ts). */
const SECRET_DIR = tempDir("symposium-lifecycle-secrets-");

/** The processes whose environment carries STARTED_HERE (Linux; elsewhere none are found, and the hosts' trees are all that is stopped). */
function startedHere(): number[] {
  if (!fs.existsSync("/proc/self/environ")) return [];
  const wanted = `${STARTED_HERE_ENV}=${STARTED_HERE}`;
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(wanted);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

const started: number[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((pid) => stopProcessTree(pid)));
  await Promise.all(startedHere().map((pid) => stopProcessTree(pid)));
  await eventually(() => startedHere().length === 0, 5_000, "every process this test started to be gone");
});

interface Options {
  state?: PersistentState;
  trusted?: boolean;
  frontend?: LaunchSpec["frontend"];
  port?: number;
  kind?: NewLaunch["kind"];
  wantedStateFile?: string;
  answerRestart?: boolean;
}

/** A lifecycle around the real host client, as one window load would have it. */
function windowLoad(options: Options = {}) {
  const state = options.state ?? memoryState().state;
  const clock = new TestClock();
  const shown: Array<{ status: PanelStatus; chatUrl?: string }> = [];
  const states: HostState[] = [];
  const questions: string[] = [];
  const logged: string[] = [];
  const spawned: LaunchSpec[] = [];
  const window = { trusted: options.trusted ?? true, trustManaged: 0 };
  const real = panelHostClient({ program: process.execPath, script: PANEL_HOST_CLI, env: { [STARTED_HERE_ENV]: STARTED_HERE } });
  const lifecycle = new PanelLifecycle({
    client: {
      ...real,
      spawn: (spec) => {
        spawned.push(spec);
        const host = real.spawn(spec);
        started.push(host.pid);
        return host;
      },
    },
    clock,
    view: { show: (status, chatUrl) => shown.push({ status, chatUrl }) },
    window: {
      isTrusted: () => window.trusted,
      manageTrust: async () => {
        window.trustManaged++;
      },
      confirmRestart: async (question) => {
        questions.push(question);
        return options.answerRestart ?? false;
      },
      stateChanged: async (next) => {
        states.push(next);
      },
      chatAddress: async (port) => `http://127.0.0.1:${port}/`,
      theme: () => "dark",
      wantedStateFile: () => options.wantedStateFile,
      newLaunch: async () => launch(options),
    },
    records: new PanelRecord(state, SECRET_DIR),
    log: { info: (line) => logged.push(line), warn: (line) => logged.push(line), error: (line) => logged.push(line) },
  });
  const last = () => shown.at(-1)!;
  return { lifecycle, state, clock, shown, states, questions, logged, spawned, window, last };
}

async function launch(options: Options): Promise<NewLaunch> {
  const dir = tempDir("symposium-lifecycle-");
  return {
    spec: {
      launchId: crypto.randomUUID(),
      secret: crypto.randomBytes(24).toString("base64url"),
      port: options.port ?? (await getPort({ host: "127.0.0.1" })),
      frontend: options.frontend ?? { program: process.execPath, args: [FAKE_TOAD, "acp", DEMO_AGENT_COMMAND] },
      cwd: dir,
      env: {},
      allowedOrigins: [],
      idleTimeoutMs: 60_000,
      logFile: path.join(dir, "chat-host.log"),
    },
    kind: options.kind ?? "builtin",
    describe: "the Toad stand-in",
    stateFile: undefined,
    portFromSetting: options.port !== undefined,
  };
}

describe("PanelLifecycle", () => {
  it("starts one host for concurrent opens, shows the chat once its frontend runs, and keeps it attached", async () => {
    const load = windowLoad();
    await Promise.all([load.lifecycle.ensureStarted(), load.lifecycle.ensureStarted()]);
    assert.equal(load.spawned.length, 1, "one host for both opens");
    assert.deepEqual(load.states, ["stopped", "starting", "running"]);
    assert.deepEqual(load.shown[0], { status: STARTING, chatUrl: undefined });
    const { status, chatUrl } = load.last();
    assert.deepEqual(status, { kind: "ready" });
    const spec = load.spawned[0]!;
    const url = new URL(chatUrl!);
    assert.equal(url.origin, `http://127.0.0.1:${spec.port}`);
    assert.equal(url.searchParams.get("token"), spec.secret);
    assert.equal(url.searchParams.get("theme"), "dark");
    const saved = await new PanelRecord(load.state, SECRET_DIR).load();
    assert.equal(saved?.secret, spec.secret);
    assert.equal(saved?.record.launchId, spec.launchId);
    assert.equal(url.searchParams.get("conversation"), saved?.record.conversation);
    assert.deepEqual([...load.clock.ticks.values()], [HEARTBEAT_MS], "one heartbeat");
    const shownBefore = load.shown.length;
    await load.clock.beat();
    assert.equal(load.shown.length, shownBefore, "a heartbeat that finds the chat as it was shows nothing new");
    assert.equal(load.lifecycle.state, "running");

    await load.lifecycle.rememberConversation("second-chat");
    assert.equal((await new PanelRecord(load.state, SECRET_DIR).load())?.record.conversation, "second-chat", "a reload returns to it");
    await load.lifecycle.rememberConversation("not a conversation id");
    assert.equal((await new PanelRecord(load.state, SECRET_DIR).load())?.record.conversation, "second-chat");
    load.lifecycle.dispose();
    assert.equal(load.clock.ticks.size, 0, "a window that goes stops its heartbeat");
  });

  it("reconnects the next window load to the host that answers as its launch, and forgets one that does not", async () => {
    const first = windowLoad({ kind: "toad" });
    await first.lifecycle.ensureStarted();
    first.lifecycle.dispose();
    const chatUrl = first.last().chatUrl;

    const second = windowLoad({ state: first.state });
    await second.lifecycle.ensureStarted();
    assert.equal(second.spawned.length, 0, "no new host");
    assert.deepEqual(second.shown[0], { status: RECONNECTING, chatUrl: undefined }, "the kept chat stays on screen while the host is checked");
    assert.deepEqual(second.last(), { status: { kind: "ready", notice: TOAD_RELOAD_NOTICE }, chatUrl }, "Toad's reloaded page is a new conversation");
    second.lifecycle.dispose();

    // The same host under a record of another launch: a stranger, never embedded nor signalled.
    const records = new PanelRecord(first.state, SECRET_DIR);
    const saved = (await records.load())!;
    await records.save({ ...saved.record, launchId: "another-launch" }, saved.secret);
    const third = windowLoad({ state: first.state });
    await third.lifecycle.ensureStarted();
    assert.equal(third.spawned.length, 1, "a new host");
    assert.ok(
      third.logged.some((line) => line.includes("is not there any more: a different process answers")),
      third.logged.join("\n"),
    );
    assert.deepEqual(third.shown.slice(0, 2), [
      { status: RECONNECTING, chatUrl: undefined },
      { status: STARTING, chatUrl: undefined },
    ]);
    assert.equal(third.last().status.kind, "ready");
    assert.ok(isAlive(saved.record.pid), "the stranger was left alone");
    assert.equal((await records.load())?.record.launchId, third.spawned[0]!.launchId);
    third.lifecycle.dispose();
  });

  it("reconnects after a reload while VS Code's SecretStorage does not answer (the secret is in a private file)", async () => {
    const stores = memoryState();
    const first = windowLoad({ state: stores.state });
    await first.lifecycle.ensureStarted();
    first.lifecycle.dispose();
    const { record } = (await new PanelRecord(stores.state, SECRET_DIR).load())!;
    if (process.platform !== "win32") {
      assert.equal(fs.statSync(path.join(SECRET_DIR, `${record.launchId}.secret`)).mode & 0o777, 0o600);
      assert.equal(fs.statSync(SECRET_DIR).mode & 0o777, 0o700);
    }
    // Seen in code-server after a reload on a busy machine: the read went to the page and no answer came for over a minute.
    const never = () => new Promise<never>(() => undefined);
    const silent = { onDidChange: () => ({ dispose() {} }), get: never, store: never, delete: never, keys: never };
    const second = windowLoad({ state: new PersistentState(stores.workspace, stores.global, silent) });
    await second.lifecycle.ensureStarted();
    assert.equal(second.spawned.length, 0, "no new host");
    assert.deepEqual(second.last(), { status: { kind: "ready" }, chatUrl: first.last().chatUrl });
    second.lifecycle.dispose();
  });

  it(
    "reconnects after a reload to a host that is slow to answer (a busy machine), never starting a second one",
    { skip: process.platform === "win32" && "SIGSTOP" },
    async () => {
      const first = windowLoad();
      await first.lifecycle.ensureStarted();
      first.lifecycle.dispose();
      const { record } = (await new PanelRecord(first.state, SECRET_DIR).load())!;
      // The host answers nothing for 2.5 s (its connections wait in the kernel's queue), as a starved process does.
      process.kill(record.pid, "SIGSTOP");
      const resume = setTimeout(() => process.kill(record.pid, "SIGCONT"), 2_500);
      try {
        const second = windowLoad({ state: first.state });
        await second.lifecycle.ensureStarted();
        assert.equal(second.spawned.length, 0, "no second host");
        assert.deepEqual(second.last(), { status: { kind: "ready" }, chatUrl: first.last().chatUrl });
        second.lifecycle.dispose();
      } finally {
        clearTimeout(resume);
        process.kill(record.pid, "SIGCONT");
      }
    },
  );

  it("says when the heartbeat finds the host gone, with Retry; Retry starts a new one", async () => {
    const load = windowLoad();
    await load.lifecycle.ensureStarted();
    const { record } = (await new PanelRecord(load.state, SECRET_DIR).load())!;
    await stopProcessTree(record.pid);
    await load.clock.beat();
    const status = load.last().status;
    assert.equal(status.kind === "error" && `${status.message} retry: ${status.retry}`, "The chat host has stopped. retry: true");
    assert.equal(load.lifecycle.state, "failed");
    assert.equal(load.clock.ticks.size, 0, "no heartbeat to a host that is gone");
    await load.lifecycle.restart();
    assert.equal(load.spawned.length, 2);
    assert.equal(load.lifecycle.state, "running");
    assert.deepEqual(load.last().status, { kind: "ready" }, "after a failure the new chat is not announced as a restart");
    load.lifecycle.dispose();
  });

  it("restarts with the chat kept on screen until the new one is ready, which says once that it is a new conversation", async () => {
    const load = windowLoad();
    await load.lifecycle.ensureStarted();
    const old = (await new PanelRecord(load.state, SECRET_DIR).load())!.record;
    const before = load.shown.length;
    await load.lifecycle.restart();
    assert.deepEqual(load.shown[before]?.status, RESTARTING);
    assert.equal(isAlive(old.pid), false, "the old host is gone");
    const fresh = (await new PanelRecord(load.state, SECRET_DIR).load())!.record;
    assert.notEqual(fresh.pid, old.pid);
    assert.deepEqual(load.last().status, { kind: "ready", notice: RESTART_NOTICE });
    assert.notEqual(new URL(load.last().chatUrl!).searchParams.get("token"), null);
    await load.clock.beat();
    assert.deepEqual(load.last().status, { kind: "ready" }, "the notice is said once");
    load.lifecycle.dispose();
  });

  it("stops the host's whole tree and stays stopped; a Restart during the Stop waits for it", async () => {
    const load = windowLoad();
    await load.lifecycle.ensureStarted();
    const { record, secret } = (await new PanelRecord(load.state, SECRET_DIR).load())!;
    const frontend = await fetchIdentity(record.port, secret);
    const frontendPid = frontend.frontend.state === "running" ? frontend.frontend.pid : -1;
    const before = load.shown.length;
    await load.lifecycle.stop();
    assert.deepEqual(
      load.shown.slice(before).map((each) => each.status),
      [STOPPING, STOPPED],
    );
    assert.equal(load.lifecycle.state, "stopped");
    // Killed and waited for by the stop; reaping a process is the system's, so wait for that too.
    await eventually(() => !isAlive(record.pid), 5_000, "the host to be gone");
    await eventually(() => !isAlive(frontendPid), 5_000, "its frontend to be gone");
    assert.equal(new PanelRecord(load.state, SECRET_DIR).remembered(), false);
    await load.lifecycle.ensureStarted();
    assert.equal(load.spawned.length, 1, "opening the panel after Stop starts nothing");

    // Start again, then Stop and Restart at once: the Restart's host is the one left running and remembered.
    await load.lifecycle.restart();
    await Promise.all([load.lifecycle.stop(), load.lifecycle.restart()]);
    assert.equal(load.lifecycle.state, "running");
    const kept = (await new PanelRecord(load.state, SECRET_DIR).load())!.record;
    assert.equal(kept.launchId, load.spawned.at(-1)!.launchId);
    assert.ok(isAlive(kept.pid));
    load.lifecycle.dispose();
  });

  it("starts nothing in Restricted Mode, leads Restart to the trust editor, and starts once the workspace is trusted", async () => {
    const load = windowLoad({ trusted: false });
    await load.lifecycle.ensureStarted();
    assert.deepEqual(load.last().status, RESTRICTED);
    assert.equal(load.lifecycle.state, "stopped");
    await load.lifecycle.restart();
    assert.equal(load.window.trustManaged, 1);
    assert.equal(load.spawned.length, 0);
    load.window.trusted = true;
    await load.lifecycle.trustGranted();
    assert.equal(load.lifecycle.state, "running");
    assert.equal(load.spawned.length, 1);
    await load.lifecycle.trustGranted();
    assert.equal(load.spawned.length, 1, "trust granted again starts nothing more");
    load.lifecycle.dispose();
  });

  it("names the busy port of the setting when the host cannot have it", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const load = windowLoad({ port });
      await load.lifecycle.ensureStarted();
      assert.deepEqual(load.last().status, {
        kind: "error",
        message: `Port ${port} is busy (setting symposium.toadPort). Choose another port, or set it to 0 to pick a free one.`,
        detail: undefined,
        retry: true,
      });
      assert.equal(load.lifecycle.state, "failed");
      assert.equal(new PanelRecord(load.state, SECRET_DIR).remembered(), false, "nothing remembered of a host that never ran");
    } finally {
      server.close();
    }
  });

  it("gives up on a frontend that does not answer by the deadline, and ends the host", async () => {
    const load = windowLoad({ frontend: { program: process.execPath, args: ["-e", "setInterval(() => {}, 60_000)", "--"] } });
    const starting = load.lifecycle.ensureStarted();
    await eventually(() => new PanelRecord(load.state, SECRET_DIR).remembered(), 10_000, "the host's record");
    const { record } = (await new PanelRecord(load.state, SECRET_DIR).load())!;
    const hostLog = () => (fs.existsSync(record.logFile) ? fs.readFileSync(record.logFile, "utf8") : "");
    await eventually(() => hostLog().includes("starting the frontend"), 10_000, "the host to start its frontend");
    load.clock.advance(READY_TIMEOUT_MS + 1);
    await starting;
    const status = load.last().status;
    assert.equal(status.kind, "error", JSON.stringify(load.shown) + hostLog());
    assert.equal(status.kind === "error" && status.message, `The chat did not answer within ${READY_TIMEOUT_MS / 1000} s.`);
    assert.match(status.kind === "error" ? (status.detail ?? "") : "", /starting the frontend/, "the host's log lines under it");
    assert.equal(isAlive(record.pid), false, "the host is ended");
    assert.equal(new PanelRecord(load.state, SECRET_DIR).remembered(), false);
  });

  it("offers a restart for a changed setting only while the chat runs, and for editor context only to a host without its file", async () => {
    const load = windowLoad({ wantedStateFile: path.join(tempDir(), "state.json") });
    await load.lifecycle.offerRestart("The setting symposium.toadCommand");
    assert.deepEqual(load.questions, [], "nothing to restart");
    await load.lifecycle.ensureStarted();
    await load.lifecycle.editorContextChanged();
    assert.deepEqual(load.questions, [
      "Symposium: The setting symposium.editorContext.enabled changed. Restart the chat to use it? (The current conversation ends.)",
    ]);
    assert.equal(load.spawned.length, 1, "answered no: the chat goes on");
    load.lifecycle.dispose();
  });
});
