// The user's MCP servers as the conductor reads them (mcp-servers.ts): the
// editor passes symposium.mcpServers under the name the conductor reads, and
// the conductor reads it back as the same servers; the config file's come
// first; entries are checked one by one.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { RUN_CONFIG_ENV } from "../../../conductor-hooks/src/config.js";
import { MCP_SERVERS_ENV as CONDUCTOR_NAME, checkMcpServers, userMcpServers } from "../../../conductor-hooks/src/mcp-servers.js";
import { MCP_SERVERS_ENV, mcpServersEnvironment } from "../../../extension/src/agents/custom-agents.js";
import { conductorEnvironment } from "../../../extension/src/panel/panel-launch.js";
import { tempDir } from "../../support/processes.js";

const BASE = { toadCommand: "builtin", toadPort: 0, acpAgentPath: "", editorContextEnabled: true };
const SETTING = { name: "notes", command: "notes-server", args: ["--x"], env: [] };
const CONFIGURED = { type: "http", name: "docs", url: "https://docs.test/mcp", headers: [] };

describe("the user's MCP servers", () => {
  it("symposium.mcpServers reaches the conductor under the name it reads, always set", () => {
    assert.equal(MCP_SERVERS_ENV, CONDUCTOR_NAME);
    assert.deepEqual(mcpServersEnvironment(), { [MCP_SERVERS_ENV]: "[]" }, "none is said, so an inherited value never stands in");
    const env = conductorEnvironment({ ...BASE, userMcpServers: [SETTING] });
    const config = path.join(tempDir(), "config.jsonc");
    fs.writeFileSync(config, `{ "agent": "a", /* mine */ "mcpServers": [${JSON.stringify(CONFIGURED)}] }`);
    const read = userMcpServers({ ...env, [RUN_CONFIG_ENV]: config }, () => {});
    assert.deepEqual(
      read.servers.map((server) => server.entry),
      [CONFIGURED, SETTING],
    );
    assert.deepEqual(read.refused, []);
  });

  it("fills in what ACP requires and refuses what it cannot give, each with what to fix", () => {
    const checked = checkMcpServers([
      [
        [
          { name: "bare", command: "bare-server" },
          { name: "", command: "x" },
          { type: "http", name: "plain", url: "ftp://x.test" },
        ],
        "list",
      ],
      ["not a list", "other"],
    ]);
    assert.deepEqual(checked.servers[0]?.entry, { name: "bare", command: "bare-server", args: [], env: [] });
    assert.deepEqual(
      checked.refused.map((refusal) => refusal.reason),
      [
        'list[1]: "name" must be a short name of one line, such as "github"',
        `list[2] (plain): "url" must be an http:// or https:// address, not 'ftp://x.test'`,
        'other must be a list of MCP servers ({ "name", "command", "args", "env" } or { "type": "http", "name", "url", "headers" })',
      ],
    );
  });
});
