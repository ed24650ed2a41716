// Lint: typescript-eslint's type-checked rules over every folder's project
// (each file is checked with the nearest tsconfig.json, so the same types tsc
// sees), and Prettier's formatting left to Prettier (eslint-config-prettier
// turns off the rules that would fight it). `npm run lint` fails on any warning.
import eslint from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["out/", "dist/", "node_modules/", ".cache/", "test/fixtures/workspace/"],
  },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // The .mjs files at the top and in media/ belong to no folder's project: scripts/tsconfig.json types them.
        projectService: { allowDefaultProject: ["*.mjs", "media/*.mjs"], defaultProject: "scripts/tsconfig.json" },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // `() => {}` is this code's deliberate no-op: a stream error its exit reports, a logger that logs nothing.
      "@typescript-eslint/no-empty-function": "off",
      // `T[]` for simple element types, `Array<{ … }>` where the element is an object or union type: the style already in use.
      "@typescript-eslint/array-type": ["error", { default: "array-simple" }],
      // node:test's top-level test()/describe()/it() return promises the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "describe", "it", "suite", "before", "after", "beforeEach", "afterEach"] },
          ],
        },
      ],
      // `env.X || default`: an empty setting means unset here, so `||` on strings is meant.
      "@typescript-eslint/prefer-nullish-coalescing": ["error", { ignorePrimitives: { string: true } }],
      // An `async` function without `await` is how a promise-returning API here turns a throw into a rejection.
      "@typescript-eslint/require-await": "off",
      // `let x;` read by closures made before its one assignment: as a const it would sit in its temporal dead zone.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // `_name` marks a parameter a signature needs but the body does not (tsc's noUnusedParameters agrees).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // Plain JavaScript: no-undef is off for TypeScript (tsc checks names), but the .mjs scripts have no tsc check.
    files: ["**/*.mjs"],
    languageOptions: {
      globals: Object.fromEntries(
        [
          "process",
          "console",
          "Buffer",
          "URL",
          "setTimeout",
          "clearTimeout",
          "setInterval",
          "clearInterval",
          "AbortController",
          "TextDecoder",
          "TextEncoder",
        ].map((name) => [name, "readonly"]),
      ),
    },
    // Untyped JavaScript: every parameter is `any`, so these would only restate that.
    rules: Object.fromEntries(
      ["no-unsafe-argument", "no-unsafe-assignment", "no-unsafe-call", "no-unsafe-member-access", "no-unsafe-return"].map((rule) => [
        `@typescript-eslint/${rule}`,
        "off",
      ]),
    ),
  },
  {
    // The frames' message names are spelled in webview/src/panel-messages.ts only: every frame imports them from there.
    files: ["webview/**/*.ts", "webchat/**/*.ts", "extension/**/*.ts"],
    ignores: ["webview/src/panel-messages.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "Literal[value=/^symposium\\/(chords|mention|theme|focus|editResult|request|conversation|transcript)$/]",
          message: "A message between the panel's frames: use CHAT_MESSAGE from webview/src/panel-messages.ts.",
        },
      ],
    },
  },
  prettier,
);
