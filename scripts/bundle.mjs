// Bundles what ships: the CLIs (dist/*.mjs, what package.json's bin and
// the .vsix run; the editor's MCP server among them) and, when it exists, the VS Code extension.
//
// The ACP SDK and zod are marked side-effect free so esbuild can drop the
// generated zod schemas the CLIs never call: the proxy only needs the SDK's
// constants and error codes, and loading every schema costs ~20 MB of memory
// and ~0.2 s of startup in a process Toad starts for every chat session.

import * as esbuild from "esbuild";
import { existsSync, rmSync } from "node:fs";

// Chunk names carry their content's hash: the last build's would pile up.
rmSync("dist/chunks", { recursive: true, force: true });

const sideEffectFreeSdk = {
  name: "side-effect-free-sdk",
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.resolving) return undefined;
      const result = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { resolving: true },
      });
      if (result.errors.length > 0 || !/node_modules[\\/](@agentclientprotocol[\\/]sdk|zod|cross-spawn|jsonc-parser)[\\/]/.test(result.path)) return result;
      return { ...result, sideEffects: false };
    });
  },
};

// The editor's stdio MCP server loads Ajv on its first tool call (editor-tools/src/server.ts, LazyAjvValidator,
// from a chunk): the SDK `Server`'s static import of its default validator, which it builds only when given none
// and ours always gives one, is replaced by a class that says so, so Ajv is not loaded at start (~3.5 MB, P15).
const serverWithoutDefaultValidator = {
  name: "server-without-default-validator",
  setup(build) {
    build.onResolve({ filter: /[\\/]validation[\\/]ajv-provider\.js$/ }, (args) =>
      /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/.test(args.importer)
        ? { path: "sdk-server-default-validator", namespace: "stub" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
      loader: "js",
      contents:
        "export class AjvJsonSchemaValidator { constructor() { throw new Error('symposium-editor-tools: the SDK Server needs a jsonSchemaValidator option (its Ajv default is not bundled)'); } }",
    }));
  },
};

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  plugins: [sideEffectFreeSdk],
  mainFields: ["module", "main"],
  metafile: true,
};

/** A page a browser loads (the chat's, the panel's): one minified script, no source map. */
const browserPage = {
  ...common,
  plugins: [],
  platform: "browser",
  target: "es2022",
  format: "iife",
  mainFields: ["browser", "module", "main"],
  sourcemap: false,
  minify: true,
};

const cliBanner = {
  js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
};

// ws loads these native speed-ups only if installed (inside try/catch); we ship without them.
const wsOptionalNatives = ["bufferutil", "utf-8-validate"];

await Promise.all([
  // The conductor, split: what a run does not need (the registry's installs with tar and yauzl, the setup and demo
  // agents with the ACP SDK) is in chunks loaded by `import()` when used. Its second entry is `run` for a client's own
  // process: the built-in chat loads it from beside the conductor (webchat/src/agent-process.ts); its third, the
  // editor-context proxy's program, which is the same chain with only the editor-context component. The two programs'
  // entries load nothing but Node's until the compile cache is on; a chain's processes are spawned before its router
  // and in-process components are loaded (conductor-hooks/src/conductor.ts).
  esbuild.build({
    ...common,
    format: "esm",
    banner: cliBanner,
    splitting: true,
    entryPoints: {
      "symposium-conductor": "conductor-hooks/src/cli-entry.ts",
      "symposium-conductor-in-process": "conductor-hooks/src/in-process.ts",
      "symposium-editor-context": "conductor-hooks/src/editor-context-entry.ts",
    },
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
  }),
  // The editor's MCP server (docs/editor-tools.md), which the proxy names in every session's mcpServers:
  // one per session, so its memory counts. Whitespace minified (names kept, the source map maps back):
  // V8 holds a script's whole source, twice its size once a comment has a character past Latin-1.
  // Ajv, needed from the first tool call on, is a chunk of its own (serverWithoutDefaultValidator above).
  esbuild.build({
    ...common,
    plugins: [...common.plugins, serverWithoutDefaultValidator],
    format: "esm",
    banner: cliBanner,
    minifyWhitespace: true,
    splitting: true,
    entryPoints: { "symposium-editor-tools": "editor-tools/src/cli.ts" },
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
  }),
  // The language model provider's MCP relay: the consumer's tools, offered to the agent (lm-provider/).
  esbuild.build({ ...common, format: "esm", banner: cliBanner, entryPoints: ["lm-provider/src/tool-relay.ts"], outfile: "dist/symposium-lm-tools.mjs" }),
  // The built-in web chat: its server (one file: it loads the conductor's in-process entry only when it runs ours),
  esbuild.build({
    ...common,
    format: "esm",
    banner: cliBanner,
    entryPoints: ["webchat/src/cli.ts"],
    outfile: "dist/symposium-webchat.mjs",
    external: wsOptionalNatives,
  }),
  // and the page's script and stylesheet it serves.
  esbuild.build({ ...browserPage, entryPoints: { page: "webchat/page/main.ts" }, outdir: "dist/webchat" }),
  // The panel page's script and stylesheet (webview/page/), loaded by VS Code's webview under the panel's CSP.
  esbuild.build({ ...browserPage, entryPoints: { panel: "webview/page/main.ts" }, outdir: "dist/webview" }),
  // The walkthrough view's page (webchat/page/walkthrough.ts: the chat's Markdown path), and mermaid, which draws its
  // diagrams offline, a script of its own that the page loads only for a diagram (most of the weight: ~5 MB).
  esbuild.build({
    ...browserPage,
    entryPoints: { walkthrough: "webchat/page/walkthrough.ts", "walkthrough-mermaid": "webchat/page/walkthrough-mermaid.ts" },
    outdir: "dist/walkthrough",
  }),
  esbuild.build({
    ...common,
    format: "esm",
    banner: cliBanner,
    entryPoints: ["panel-host/src/main.ts"],
    outfile: "dist/symposium-panel-host.mjs",
    external: wsOptionalNatives,
  }),
  // The extension-host test suite: CommonJS, as VS Code's test runner loads it.
  esbuild.build({
    ...common,
    format: "cjs",
    entryPoints: ["test/extension-host/extension.test.ts"],
    outfile: "out/extension-host/extension.test.cjs",
    external: ["vscode", "mocha"],
  }),
  // A Language Model API consumer the e2e test runs in code-server's extension host (test/e2e/language-models.test.ts).
  esbuild.build({
    ...common,
    format: "cjs",
    entryPoints: ["test/extension-host/lm-consumer.ts"],
    outfile: "out/extension-host/lm-consumer.cjs",
    external: ["vscode"],
  }),
  // A timer of VS Code's own reference provider, beside Symposium in code-server (test/e2e/editor-tools.test.ts).
  esbuild.build({
    ...common,
    format: "cjs",
    entryPoints: ["test/extension-host/reference-timer.ts"],
    outfile: "out/extension-host/reference-timer.cjs",
    external: ["vscode"],
  }),
  esbuild.build({
    ...common,
    format: "cjs",
    entryPoints: ["test/extension-host/index.ts"],
    outfile: "out/extension-host/index.cjs",
    external: ["vscode", "mocha"],
  }),
  existsSync("extension/src/extension.ts")
    ? esbuild.build({ ...common, format: "cjs", entryPoints: ["extension/src/extension.ts"], outfile: "dist/extension.cjs", external: ["vscode"] })
    : Promise.resolve(),
]);
