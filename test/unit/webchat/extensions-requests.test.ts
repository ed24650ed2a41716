// The Extensions section's page requests, checked before the conductor runs
// (webchat/src/extensions-manager.ts): a page may ask only the known verbs,
// on a name the config could hold; a spec cannot become an option or a
// second line; the conductor's list is bounded before it reaches a page. The
// section in Chromium: test/process/webchat/webchat-extensions.test.ts.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { changeArgs, parseExtensions } from "../../../webchat/src/extensions-manager.js";

describe("the Extensions section's requests", () => {
  it("become the conductor's extensions verbs", () => {
    assert.equal(changeArgs({ action: "list" }), undefined);
    assert.deepEqual(changeArgs({ action: "enable", name: "alpha" }), ["enable", "alpha"]);
    assert.deepEqual(changeArgs({ action: "remove", name: "a.b-c_d" }), ["remove", "a.b-c_d"]);
    assert.deepEqual(changeArgs({ action: "move", name: "alpha", to: "up" }), ["move", "alpha", "up"]);
    assert.deepEqual(changeArgs({ action: "move", name: "alpha", to: 2 }), ["move", "alpha", "2"]);
    assert.deepEqual(changeArgs({ action: "add", spec: " npx:@scope/pkg " }), ["add", "--", "npx:@scope/pkg"]);
  });

  it("refuse an unknown verb, a name that is an option or a path, a bad place, a spec that is an option or two lines", () => {
    assert.throws(() => changeArgs({ action: "exec", name: "alpha" }), /unknown extensions action/);
    for (const name of ["--config=/etc/x", "../x", "a b", "", 3]) assert.throws(() => changeArgs({ action: "disable", name }), /an extension's name/);
    for (const to of ["left", 0, 1.5, "1"]) assert.throws(() => changeArgs({ action: "move", name: "alpha", to }), /up, down or a position/);
    for (const spec of ["--config=/tmp/x", "npx:a\nb", "", "x".repeat(2001), 7]) assert.throws(() => changeArgs({ action: "add", spec }), /add: a built-in/);
  });

  it("the conductor's list, checked and bounded", () => {
    const listed = parseExtensions(
      JSON.stringify([
        { position: 1, name: "alpha", enabled: true, runs: "x".repeat(1000), source: "npx:a" },
        { name: "bad name!", enabled: true, runs: "" },
        { name: "beta", enabled: "yes" },
      ]),
    );
    assert.deepEqual(
      listed.map(({ name, enabled, runs }) => [name, enabled, runs.length]),
      [
        ["alpha", true, 300],
        ["beta", false, 0],
      ],
    );
    assert.throws(() => parseExtensions("{}"), /did not answer a JSON list/);
  });
});
