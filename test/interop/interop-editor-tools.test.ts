// Which published agent adapters start the editor's MCP server when a session
// names it, before they need a model (docs/editor-tools.md, "What the adapters
// do"): each adapter, logged out, gets initialize and a session/new whose
// mcpServers holds the entry the proxy adds, pointed at a recorder in front of
// the real server; the recorder says whether it was started and what the
// agent asked it.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { stopProcesses } from "../../acp-wire/src/processes.js";
import { EDITOR_TOOLS_SERVER_NAME } from "../../editor-context-proxy/src/index.js";
import { testClient } from "../support/acp-client.js";
import { eventually, startProcess, streamTo, tempDir } from "../support/processes.js";
import { ADAPTERS, adapterCommand, adapterSetup, agentReadablePrograms, type Adapter } from "./adapters.js";
import { failIfMissing, skipOutsideCi } from "./rust-peers.js";

const setup = adapterSetup();
const missing = "missing" in setup ? setup.missing : false;

/** What each adapter was found to do with the server logged out (docs/editor-tools.md). */
const EXPECTED: Record<Adapter["shortName"], { starts: true; asks: string[] } | { starts: false; because: RegExp }> = {
  claude: { starts: true, asks: ["initialize", "notifications/initialized", "tools/list"] },
  codex: { starts: false, because: /Authentication required/ },
  gemini: { starts: false, because: /API key is missing/ },
};

describe("the published adapters and the editor's MCP server, logged out", { skip: skipOutsideCi(missing) }, () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter.pkg}@${adapter.version}: ${EXPECTED[adapter.shortName].starts ? "starts it at session/new and lists its tools" : "refuses session/new before starting it"}`, async (t) => {
      failIfMissing(missing);
      if ("missing" in setup) return;
      // The adapters run as another user: the record goes where that user may write.
      const dir = tempDir("symposium-mcp-interop-");
      fs.chmodSync(dir, 0o777);
      const record = path.join(dir, "record.txt");
      // Copies the agents' user can read, wherever the clone is (adapters.ts).
      const programs = agentReadablePrograms();
      const [program, ...args] = adapterCommand(setup, adapter);
      // In the test's folder: Gemini CLI exits at start in a working folder its user cannot read (the clone may be one).
      const agent = startProcess(program!, args, {}, { cwd: dir });
      t.after(() => void agent.child.kill()); // a failed assertion must not leave it running
      const entry = {
        name: EDITOR_TOOLS_SERVER_NAME,
        command: process.execPath,
        args: [programs.fixture("mcp-recorder")],
        env: [
          { name: "MCP_RECORD", value: record },
          { name: "MCP_SERVER", value: programs.editorTools },
          { name: "SYMPOSIUM_EDITOR_STATE_FILE", value: path.join(dir, "no-state.json") },
        ],
      };
      const expected = EXPECTED[adapter.shortName];
      const recorded = (): string[] => (fs.existsSync(record) ? fs.readFileSync(record, "utf8").trim().split("\n") : []);
      // Everything while the adapter runs: the client's end closes its input.
      await testClient(streamTo(agent.child)).run(async (calls) => {
        await calls.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "symposium-tests", version: "0" } });
        const opened = await calls.request("session/new", { cwd: dir, mcpServers: [entry] }).then(
          () => "opened",
          (error: Error) => error.message,
        );
        if (expected.starts) {
          assert.equal(opened, "opened");
          await eventually(() => recorded().includes("tools/list"), 30_000, `${adapter.bin} listing the editor's tools`);
          for (const method of expected.asks) assert.ok(recorded().includes(method), `${adapter.bin} sent ${method}: ${recorded().join(", ")}`);
        } else {
          assert.match(opened, expected.because);
          assert.deepEqual(recorded(), [], `${adapter.bin} never started it`);
        }
      });
      // The whole tree (the adapter keeps its MCP servers and helpers): the project's one stop sequence.
      await stopProcesses([agent.child]);
    });
  }
});
