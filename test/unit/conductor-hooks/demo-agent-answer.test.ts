// The demo agent's answer: it names the file of
// each resource block it received (a mention the chat sent with its text),
// and, in a chat with an agent picker, points at the picker rather than at
// the config file.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { describePrompt } from "../../../conductor-hooks/src/demo-agent.js";
import { AGENT_PICKER_ENV as CONDUCTOR_PICKER_ENV } from "../../../conductor-hooks/src/agent-choices.js";
import { AGENT_PICKER_ENV as CHAT_PICKER_ENV } from "../../../webchat/src/agent-catalog.js";

const CONFIG = "/home/me/.symposium/config.jsonc";

describe("the demo agent's answer", () => {
  it("names the file of a resource block, and of a resource link", () => {
    const answer = describePrompt(
      [
        { type: "text", text: "what is in @src/main.rs?" },
        { type: "resource", resource: { uri: "file:///work/project/src/main.rs", mimeType: "text/x-rust", text: "fn main() {}\n" } },
        { type: "resource_link", uri: "file:///work/project/Cargo.toml", name: "Cargo.toml" },
      ],
      CONFIG,
      {},
    );
    assert.match(answer, /2\. a resource block: file:\/\/\/work\/project\/src\/main\.rs \(text\/x-rust\), 13 characters of text/);
    assert.match(answer, /3\. a resource link: file:\/\/\/work\/project\/Cargo\.toml\n/);
  });

  it("in a chat with the agent picker, points at the picker, not at the config file", () => {
    const inChat = describePrompt([{ type: "text", text: "hi" }], CONFIG, { [CHAT_PICKER_ENV]: "1" });
    assert.match(
      inChat,
      /To talk to a real agent, choose another agent with the agent picker in the chat's header \(in VS Code also the command Symposium: Choose Agent\)/,
    );
    assert.doesNotMatch(inChat, /config\.jsonc/);
    // Elsewhere (a terminal, Toad, acpx) the file is where the agent is set.
    assert.match(describePrompt([{ type: "text", text: "hi" }], CONFIG, {}), /"agent" in \/home\/me\/\.symposium\/config\.jsonc names me/);
  });

  it("the chat and the conductor name the same variable", () => {
    assert.equal(CHAT_PICKER_ENV, CONDUCTOR_PICKER_ENV);
  });
});
