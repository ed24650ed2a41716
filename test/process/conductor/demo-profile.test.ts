// What `npm start` keeps between runs: the demo
// profile's settings.json gains the harness's defaults without losing what the
// user set (a theme), and never auto-forwards ports; the demo's conductor config
// starts on the demo agent and keeps an agent chosen since, as the real
// conductor's `registry use` (what the chat's picker runs) saves it.

import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { addDefaultUserSettings } from "../../harness/code-server.js";
import { demoConductorConfig } from "../../harness/demo-config.js";
import { CONDUCTOR_CLI, tempDir } from "../../support/processes.js";

const settingsFile = (userDataDir: string): string => path.join(userDataDir, "User", "settings.json");
const configuredAgent = (file: string): unknown => (JSON.parse(fs.readFileSync(file, "utf8")) as { agent: unknown }).agent;

describe("the demo profile's user settings", () => {
  it("a fresh profile gets the defaults, ports not auto-forwarded", () => {
    const userDataDir = tempDir("symposium-profile-");
    assert.equal(addDefaultUserSettings(userDataDir), null);
    const settings = JSON.parse(fs.readFileSync(settingsFile(userDataDir), "utf8")) as Record<string, unknown>;
    assert.equal(settings["remote.autoForwardPorts"], false);
    assert.equal(settings["workbench.startupEditor"], "none");
  });

  it("what the user set survives the next start, comments and all; the missing defaults are added once", () => {
    const userDataDir = tempDir("symposium-profile-");
    fs.mkdirSync(path.dirname(settingsFile(userDataDir)), { recursive: true });
    const chosen = `{
  // chosen in the demo
  "workbench.colorTheme": "Default Dark Modern",
  "telemetry.telemetryLevel": "error",
}
`;
    fs.writeFileSync(settingsFile(userDataDir), chosen);
    assert.equal(addDefaultUserSettings(userDataDir), null);
    const text = fs.readFileSync(settingsFile(userDataDir), "utf8");
    assert.match(text, /\/\/ chosen in the demo\n {2}"workbench\.colorTheme": "Default Dark Modern",\n {2}"telemetry\.telemetryLevel": "error",/);
    assert.match(text, /"remote\.autoForwardPorts": false/);
    assert.match(text, /"workbench\.startupEditor": "none"/);
    assert.doesNotMatch(text, /"telemetry\.telemetryLevel": "off"/, "a setting the user has is not replaced");
    addDefaultUserSettings(userDataDir);
    assert.equal(fs.readFileSync(settingsFile(userDataDir), "utf8"), text, "a second start changes nothing");
  });

  it("a settings file that does not parse is left as it is, and says so", () => {
    const userDataDir = tempDir("symposium-profile-");
    fs.mkdirSync(path.dirname(settingsFile(userDataDir)), { recursive: true });
    fs.writeFileSync(settingsFile(userDataDir), '{ "workbench.colorTheme": ');
    assert.match(addDefaultUserSettings(userDataDir) ?? "", /settings\.json is not a JSON object with comments; left as it is/);
    assert.equal(fs.readFileSync(settingsFile(userDataDir), "utf8"), '{ "workbench.colorTheme": ');
  });
});

describe("the demo's conductor config", () => {
  it("starts on the demo agent, private to the user", () => {
    const cache = tempDir("symposium-cache-");
    const config = demoConductorConfig(cache, CONDUCTOR_CLI);
    assert.equal(config.agent, "demo");
    assert.match(configuredAgent(config.file) as string, /symposium-conductor\.mjs" demo-agent$/);
    if (process.platform !== "win32") assert.equal(fs.statSync(config.file).mode & 0o777, 0o600);
  });

  it("keeps an agent chosen in the picker (the conductor's registry use) on the next start", () => {
    const cache = tempDir("symposium-cache-");
    const { file } = demoConductorConfig(cache, CONDUCTOR_CLI);
    execFileSync(process.execPath, [CONDUCTOR_CLI, "registry", "use", "codex", "--config", file], {
      stdio: "ignore",
      env: { ...process.env, SYMPOSIUM_REGISTRY_URL: "" },
    });
    const chosen = fs.readFileSync(file, "utf8");
    assert.match(chosen, /"id": "codex"/);
    // The second `npm start` names it ("Codex, chosen earlier, answers"), not just "the agent chosen earlier".
    assert.deepEqual(demoConductorConfig(cache, CONDUCTOR_CLI), { file, agent: "chosen", chosenName: "Codex" });
    assert.equal(fs.readFileSync(file, "utf8"), chosen);
  });

  it("leaves a config that does not parse as it is (the conductor says what is wrong in it)", () => {
    const cache = tempDir("symposium-cache-");
    const file = path.join(cache, "demo-conductor.jsonc");
    fs.writeFileSync(file, '{ "agent": "my-agent --acp", ');
    assert.deepEqual(demoConductorConfig(cache, CONDUCTOR_CLI), { file, agent: "chosen" });
    assert.equal(fs.readFileSync(file, "utf8"), '{ "agent": "my-agent --acp", ');
  });

  it("names an agent the user wrote as a command line by that line", () => {
    const cache = tempDir("symposium-cache-");
    const file = path.join(cache, "demo-conductor.jsonc");
    fs.writeFileSync(file, '{ "agent": "my-agent --acp" }');
    assert.deepEqual(demoConductorConfig(cache, CONDUCTOR_CLI), { file, agent: "chosen", chosenName: "my-agent --acp" });
  });

  it("points the demo agent at this clone again when the clone has moved", () => {
    const cache = tempDir("symposium-cache-");
    demoConductorConfig(cache, "/old/clone/dist/symposium-conductor.mjs");
    const { file, agent } = demoConductorConfig(cache, CONDUCTOR_CLI);
    assert.equal(agent, "demo");
    assert.ok((configuredAgent(file) as string).includes(JSON.stringify(CONDUCTOR_CLI)));
  });
});
