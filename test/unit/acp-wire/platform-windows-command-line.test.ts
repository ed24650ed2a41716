// Windows' command-line rules, written from the platforms' documentation and
// checked on every OS (nothing here can run Windows itself):
// - CommandLineToArgvW / the Microsoft C runtime ("Parsing C++ command-line
//   arguments", Microsoft Learn: its table of examples is below, verbatim);
// - cmd.exe running `cmd /d /s /c "LINE"` (how Node, and so the built-in chat,
//   runs a command line through the shell): a model of its percent phase and
//   its special-character phase (`cmd /?`; "How does the Windows Command
//   Interpreter (CMD.EXE) parse scripts?", Stack Overflow 4094699), enough to
//   know which program cmd starts and the command line the program receives.
// The `<conductor> run` string must give the program exactly our words.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import crossSpawnEscape from "cross-spawn/lib/util/escape.js";
import {
  escapeArgumentForCmd,
  joinWindowsCommandLine,
  quoteProgramForCmd,
  quoteWindowsArgument,
  splitWindowsCommandLine,
} from "../../../acp-wire/src/windows-command-line.js";
import { commandLine, conductorRunCommand } from "../../../extension/src/panel/frontend-command-line.js";
import { joinCommandLine, splitCommandLine } from "../../../conductor-hooks/src/config.js";

/** What cmd.exe does with LINE: the variables `set` assigned, the program it starts, and that program's argv. */
interface CmdRun {
  env: Record<string, string>;
  program: string;
  argv: string[];
}

/** Phase 1 on a command line (not a batch file): `%NAME%` of a defined variable is replaced; anything else stays. */
function percentPhase(line: string, env: Record<string, string>): string {
  let out = "";
  let index = 0;
  while (index < line.length) {
    const start = line.indexOf("%", index);
    if (start === -1) return out + line.slice(index);
    const end = line.indexOf("%", start + 1);
    if (end === -1) return out + line.slice(index);
    const name = line.slice(start + 1, end);
    const key = Object.keys(env).find((candidate) => candidate.toUpperCase() === name.toUpperCase());
    if (name !== "" && key !== undefined) {
      out += line.slice(index, start) + env[key];
      index = end + 1;
    } else {
      out += line.slice(index, end); // undefined: kept, and the closing % may open the next name
      index = end;
    }
  }
  return out;
}

const TOKEN_DELIMITERS = new Set([" ", "\t", ",", ";", "="]);

/**
 * Phase 2: outside quotes `^` makes the next character literal (and is
 * removed), `"` toggles quote mode, `&&` separates commands, and an
 * unescaped `&|<>()` is an operator our lines must never contain. Returns each
 * command's text and its command token (ended by an unescaped delimiter
 * outside quotes: `echo^ hi` is one token).
 */
function specialCharacterPhase(line: string): Array<{ text: string; token: string }> {
  const commands: Array<{ text: string; token: string }> = [];
  let text = "";
  let token = "";
  let tokenDone = false;
  let quoted = false;
  const add = (char: string, delimits: boolean): void => {
    if (!tokenDone && delimits && token !== "") tokenDone = true;
    if (!tokenDone && !(delimits && token === "")) token += char;
    text += char;
  };
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (quoted) {
      if (char === '"') quoted = false;
      add(char, false);
    } else if (char === "^") {
      index++;
      if (index < line.length) add(line[index]!, false);
    } else if (char === '"') {
      quoted = true;
      add(char, false);
    } else if (char === "&" && line[index + 1] === "&") {
      commands.push({ text: text.trim(), token });
      [text, token, tokenDone] = ["", "", false];
      index++;
    } else if ("&|<>()".includes(char)) {
      throw new Error(`cmd.exe reads an unescaped '${char}' as an operator in: ${line}`);
    } else add(char, TOKEN_DELIMITERS.has(char));
  }
  if (quoted) throw new Error(`unbalanced quotes in: ${line}`);
  commands.push({ text: text.trim(), token });
  return commands;
}

function cmdExe(line: string, env: Record<string, string> = { PATH: "C:\\Windows", USERPROFILE: "C:\\Users\\me" }): CmdRun {
  const run: CmdRun = { env: {}, program: "", argv: [] };
  for (const command of specialCharacterPhase(percentPhase(line, env))) {
    const set = /^set "([^=]+)=(.*)"$/.exec(command.text);
    if (set) {
      run.env[set[1]!] = set[2]!;
      continue;
    }
    run.program = command.token.replace(/"/g, "");
    run.argv = splitWindowsCommandLine(command.text);
  }
  return run;
}

const awkwardArguments = [
  "C:\\Users\\me\\.vscode\\extensions\\symposium-dev.symposium-vscode-0.1.0\\dist\\symposium-conductor.mjs",
  "C:\\Program Files\\dir with space\\",
  'say "hi" & bye',
  "%PATH%",
  "%USERPROFILE%\\x",
  "50% off",
  "a^b!c",
  "(x) | y < z > w",
  "semi;colon,comma=equals",
  "back\\\\slashes\\\\",
  "tab\there",
  "ünïcode",
  "*?",
  "",
  "run",
];

describe("platform: CommandLineToArgvW (Microsoft's table of examples)", () => {
  const table: Array<[string, string[]]> = [
    ['"a b c" d e', ["a b c", "d", "e"]],
    ['"ab\\"c" "\\\\" d', ['ab"c', "\\", "d"]],
    ['a\\\\\\b d"e f"g h', ["a\\\\\\b", "de fg", "h"]],
    ['a\\\\\\"b c d', ['a\\"b', "c", "d"]],
    ['a\\\\\\\\"b c" d e', ["a\\\\b c", "d", "e"]],
    ['a"b"" c d', ['ab" c d']],
  ];
  for (const [line, words] of table) {
    it(`splits ${line}`, () => assert.deepEqual(splitWindowsCommandLine(`program.exe ${line}`), ["program.exe", ...words]));
  }

  it("keeps a program path's backslashes, quoted or not", () => {
    assert.deepEqual(splitWindowsCommandLine("C:\\tools\\agent.exe acp"), ["C:\\tools\\agent.exe", "acp"]);
    assert.deepEqual(splitWindowsCommandLine('"C:\\Program Files\\Agent\\agent.exe" --flag "two words"'), [
      "C:\\Program Files\\Agent\\agent.exe",
      "--flag",
      "two words",
    ]);
    assert.deepEqual(splitWindowsCommandLine('  C:\\a\\b.exe\t x  ""  '), ["C:\\a\\b.exe", "x", ""]);
    assert.deepEqual(splitWindowsCommandLine(""), []);
  });

  it("quotes words so that splitting gives them back", () => {
    const words = ["C:\\Program Files\\Agent\\agent.exe", ...awkwardArguments];
    assert.deepEqual(splitWindowsCommandLine(joinWindowsCommandLine(words)), words);
    assert.equal(quoteWindowsArgument("plain"), "plain");
    assert.equal(quoteWindowsArgument("dir\\"), "dir\\");
    assert.equal(quoteWindowsArgument("my dir\\"), '"my dir\\\\"');
  });
});

describe("platform: the config's agent command line", () => {
  it("on Windows, splits by Windows' rules: backslashes are path separators", () => {
    assert.deepEqual(splitCommandLine("C:\\tools\\agent.exe acp", "agent", "win32"), ["C:\\tools\\agent.exe", "acp"]);
    assert.deepEqual(splitCommandLine('"C:\\Program Files\\nodejs\\npx.cmd" -y @zed-industries/claude-code-acp', "agent", "win32"), [
      "C:\\Program Files\\nodejs\\npx.cmd",
      "-y",
      "@zed-industries/claude-code-acp",
    ]);
    assert.throws(() => splitCommandLine("agent.exe | tee log", "agent", "win32"), /'\|' is shell syntax/);
    assert.deepEqual(splitCommandLine('agent.exe "a | b"', "agent", "win32"), ["agent.exe", "a | b"]);
    assert.throws(() => splitCommandLine("   ", "agent", "win32"), /the command line is empty/);
  });

  it("on POSIX, splits as a shell would, without running one", () => {
    assert.deepEqual(splitCommandLine("'/opt/My Agent/agent' --x a\\ b", "agent", "linux"), ["/opt/My Agent/agent", "--x", "a b"]);
  });

  it("writes a command line that reads back as the same words on each platform", () => {
    const words = ["C:\\Users\\me\\.symposium\\bin\\symposium-conductor.cmd", "demo-agent", "with space", ""];
    assert.deepEqual(splitCommandLine(joinCommandLine(words, "win32"), "agent", "win32"), words);
    const posix = ["/home/me/.symposium/bin/symposium-conductor", "demo-agent", "it's $HOME", "a\\b"];
    assert.deepEqual(splitCommandLine(joinCommandLine(posix, "linux"), "agent", "linux"), posix);
  });
});

describe("platform: cmd.exe command lines (the `<conductor> run` string on Windows)", () => {
  const code = "C:\\Users\\me\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe";

  it("starts VS Code's executable, whose path has spaces, with exactly our words", () => {
    for (const program of [code, "C:\\Program Files (x86)\\A&B\\tool;1,2=3.exe", "C:\\Tools\\symposium-acp-agent.exe"]) {
      const run = cmdExe(commandLine([program, ...awkwardArguments], "cmd"));
      assert.equal(run.program, program, "cmd.exe finds the program");
      assert.deepEqual(run.argv, [program, ...awkwardArguments], "the program's C runtime reads our words");
    }
  });

  it("sets ELECTRON_RUN_AS_NODE for the conductor alone, in the command line", () => {
    const script = "C:\\Users\\me\\.vscode\\extensions\\symposium-dev.symposium-vscode-0.1.0\\dist\\symposium-conductor.mjs";
    const line = conductorRunCommand({ program: code, args: [script], env: { ELECTRON_RUN_AS_NODE: "1" } }, "cmd");
    const run = cmdExe(line);
    assert.deepEqual(run.env, { ELECTRON_RUN_AS_NODE: "1" });
    assert.equal(run.program, code);
    assert.deepEqual(run.argv, [code, script, "run"]);
    assert.throws(() => conductorRunCommand({ program: code, args: [], env: { "A B": "1" } }, "cmd"), /cannot set/);
  });

  it("refuses a program path cmd.exe would expand (%…% inside quotes cannot be escaped)", () => {
    assert.throws(() => quoteProgramForCmd("C:\\%USERPROFILE%\\agent.exe"), /contains %…%/);
    assert.equal(quoteProgramForCmd("C:\\50%\\agent.exe"), '"C:\\50%\\agent.exe"');
  });

  it("escapes arguments as cross-spawn does for cmd.exe, except where cross-spawn loses backslashes", () => {
    const severalBackslashes = /\\\\+("|$)/;
    for (const word of awkwardArguments.filter((word) => !severalBackslashes.test(word)))
      assert.equal(escapeArgumentForCmd(word), crossSpawnEscape.argument(word, false));
    // cross-spawn 7.0.6 doubles only the last of several backslashes before a quote or the end: the program reads another word.
    for (const word of ["back\\\\slashes\\\\", 'two\\\\"quote']) {
      assert.notDeepEqual(cmdExe(`x.exe ${crossSpawnEscape.argument(word, false)}`).argv, ["x.exe", word]);
      assert.deepEqual(cmdExe(`x.exe ${escapeArgumentForCmd(word)}`).argv, ["x.exe", word]);
    }
  });

  it('why the program is in plain quotes: `^"` is no quote to cmd.exe, and a bare path is cut by the C runtime', () => {
    // `^"…^"` without escaped spaces (this module's former quoting): cmd looks for a program named `"C:\Users\me\AppData\Local\Programs\Microsoft`.
    const caretQuoted = `^"${code}^"`;
    assert.notEqual(cmdExe(`${caretQuoted} ^"run^"`).program, code);
    // cross-spawn's escaping of a command (made for batch files, which cmd runs itself): cmd finds the program, but its C runtime splits argv[0] at the space.
    const run = cmdExe(`${crossSpawnEscape.command(code)} ^"run^"`);
    assert.equal(run.program, code);
    assert.notDeepEqual(run.argv, [code, "run"]);
  });
});
