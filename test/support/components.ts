// The repository's components, for the tests that hold each to a rule (its README names its
// files; no function over 150 lines): one list, so a new component is added once.

/** The folders of production code. */
export const PRODUCTION_COMPONENTS = [
  "acp-wire",
  "checkpoints",
  "conductor-hooks",
  "editor-context-proxy",
  "editor-state",
  "editor-tools",
  "extension",
  "lm-provider",
  "loopback-auth",
  "panel-host",
  "webchat",
  "webview",
];

/** Every component, with the tools around the production code (bench/, scripts/); test/ names its folders, not each file. */
export const COMPONENTS = [...PRODUCTION_COMPONENTS, "bench", "scripts"].sort();
