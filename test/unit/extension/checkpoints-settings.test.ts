// The VS Code settings symposium.checkpoints.enabled and .maxTurns reach the
// conductor as the environment the extension gives the chat (panel-launch.ts),
// and the conductor reads that environment back into its checkpoint settings.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { settingsFromEnvironment } from "../../../checkpoints/src/index.js";
import { checkpointEnvironment } from "../../../extension/src/panel/panel-launch.js";
import type { ExtensionSettings } from "../../../extension/src/config.js";

const base: ExtensionSettings = { toadCommand: "toad", toadPort: 0, acpAgentPath: "", editorContextEnabled: true };
const conductorSettings = (config: ExtensionSettings) => settingsFromEnvironment(checkpointEnvironment(config), "/tmp/symposium-config", () => {});

describe("checkpoint settings from VS Code to the conductor", () => {
  it("turns checkpoints off when symposium.checkpoints.enabled is false", () => {
    assert.equal(conductorSettings({ ...base, checkpointsEnabled: false, checkpointsMaxTurns: 5 }), null);
  });

  it("passes the records cap per project, and leaves the default when the setting is out of range", () => {
    assert.equal(conductorSettings({ ...base, checkpointsEnabled: true, checkpointsMaxTurns: 7 })?.maxTurns, 7);
    assert.equal(conductorSettings({ ...base, checkpointsMaxTurns: undefined })?.maxTurns, 100);
    assert.deepEqual(checkpointEnvironment({ ...base }), {});
  });
});
