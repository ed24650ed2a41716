// How symposium.agents reaches every conductor the extension starts (the
// chat's, the quick pick's, the language models'): one environment variable,
// so each lists the same catalogue (conductor-hooks/src/catalogue.ts). No
// `vscode` here: the panel's launch plan uses it too.

/** The conductor's name for it (conductor-hooks/src/catalogue.ts: CUSTOM_AGENTS_ENV, the same name). */
export const CUSTOM_AGENTS_ENV = "SYMPOSIUM_AGENTS";

/** Always set, "[]" for none: a value inherited from VS Code's own environment never stands in for the setting. */
export function customAgentsEnvironment(custom: readonly unknown[] = []): Record<string, string> {
  return { [CUSTOM_AGENTS_ENV]: JSON.stringify(custom) };
}
