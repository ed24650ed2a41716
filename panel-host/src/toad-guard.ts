// Toad's web server (textual-serve) checks no caller: whoever reaches its
// private port gets a fresh Toad app, its agent and a keyboard into it
// (docs/panel.md "Toad's private port"). Toad is not ours to patch, so the
// host runs Toad's own entry point under a small Python launcher of ours, in
// Toad's own interpreter, that puts loopback-auth's three checks (secret, Host,
// Origin) in front of every route of textual-serve's aiohttp app before it
// starts, and refuses to serve when it cannot.
//
// The launcher is this module's Python source, passed with `python -P -c`: it
// ships inside the bundled host (no extra file in the .vsix) and needs no path
// that Toad's interpreter can see (Toad may run in a sandbox of its own). The
// interpreter is the one Toad's `toad` script names on its first line (pip,
// pipx and uv write it there; scripts/install-toad.sh's launcher too).
// The secret reaches it in CHAT_TOKEN_ENV, which it removes from its
// environment before Toad starts anything: Toad's apps and agents never see it.

import * as fs from "node:fs";
import * as path from "node:path";
import { CHAT_TOKEN_ENV, TOKEN_PARAM } from "../../loopback-auth/src/index.js";

/** Exit status of the launcher when it cannot put the checks in place. */
export const GUARD_FAILED_STATUS = 78;

/**
 * The launcher. argv: TOAD_SCRIPT ARGS…; environment: CHAT_TOKEN_ENV.
 * Two layers: every `aiohttp.web.Application` made in this process gets the
 * check as its first middleware, and `aiohttp.web.run_app` refuses an app
 * without it, so a textual-serve that builds or runs its app another way
 * fails closed here (and the host's probe refuses an unguarded server too).
 */
export const TOAD_GUARD_PY = String.raw`
import hashlib, hmac, os, runpy, sys

def fail(message):
    sys.stderr.write("symposium: " + message + "\n")
    sys.stderr.flush()
    os._exit(${GUARD_FAILED_STATUS})

secret = os.environ.pop("${CHAT_TOKEN_ENV}", "")
if len(secret) < 16:
    fail("${CHAT_TOKEN_ENV} is not set: Toad is started this way only by the Symposium panel host")
if len(sys.argv) < 2:
    fail("usage: python -P -c GUARD TOAD_SCRIPT ARGS...")
script = sys.argv[1]
sys.argv = sys.argv[1:]
try:
    import aiohttp
    from aiohttp import web
except Exception as error:
    fail("cannot add the caller checks to Toad's web server: aiohttp does not import in Toad's Python (%s); refusing to serve Toad unprotected" % error)

expected = hashlib.sha256(secret.encode()).digest()

def refuse(reason):
    return web.Response(status=403, text=reason + "\n", headers={"X-Symposium-Guard": "refused"})

@web.middleware
async def check_caller(request, handler):
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    port = sockname[1] if sockname else None
    own = {"%s:%s" % (name, port) for name in ("127.0.0.1", "localhost", "[::1]")}
    host = request.headers.get("Host", "").lower()
    if host not in own:
        return refuse("Host '%s' is not this server" % host)
    origin = request.headers.get("Origin")
    if origin is not None and origin.lower() not in {"http://" + name for name in own}:
        return refuse("Origin '%s' is not allowed" % origin)
    given = request.query.get("${TOKEN_PARAM}")
    if given is None:
        header = request.headers.get("Authorization", "")
        given = header[len("Bearer "):] if header.startswith("Bearer ") else None
    if given is None:
        return refuse("no secret in the request")
    if not hmac.compare_digest(hashlib.sha256(given.encode()).digest(), expected):
        return refuse("wrong secret")
    return await handler(request)

Application = web.Application
def guarded_application(*args, middlewares=(), **kwargs):
    return Application(*args, middlewares=[check_caller, *middlewares], **kwargs)

def checked(app):
    if not isinstance(app, Application) or check_caller not in app.middlewares:
        fail("cannot add the caller checks to Toad's web server (aiohttp %s): its app was not made through aiohttp.web.Application; refusing to serve Toad unprotected (a Toad or textual-serve upgrade changed how it starts: use batrachian-toad 0.6.20 or a newer Symposium)" % aiohttp.__version__)
    return app

run_app = web.run_app
def guarded_run_app(app, *args, **kwargs):
    if hasattr(app, "__await__"):
        made = app
        async def check_made():
            return checked(await made)
        return run_app(check_made(), *args, **kwargs)
    return run_app(checked(app), *args, **kwargs)

web.Application = guarded_application
web.run_app = guarded_run_app
runpy.run_path(script, run_name="__main__")
`;

export interface Command {
  program: string;
  args: string[];
}

/**
 * The interpreter a Python script names: `#!/path/python [flag]`,
 * `#!/usr/bin/env python3`, or pip/distlib's `#!/bin/sh` + `'''exec' PYTHON "$0" "$@"`
 * form for long paths. Undefined for anything else (a binary, a Node script).
 */
export function pythonOf(script: string): Command | undefined {
  let head: string;
  try {
    const fd = fs.openSync(script, "r");
    try {
      const buffer = Buffer.alloc(1024);
      head = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString("utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const [first = "", second = ""] = head.split(/\r?\n/);
  if (!first.startsWith("#!")) return undefined;
  const words = first.slice(2).trim().split(/\s+/);
  const [interpreter = "", ...rest] = words;
  if (/^python[\d.]*$/.test(path.basename(interpreter))) return { program: interpreter, args: rest };
  if (path.basename(interpreter) === "env" && /^python[\d.]*$/.test(rest[0] ?? "")) return { program: interpreter, args: rest };
  const trampoline = /^'''exec' (?:'([^']+)'|"([^"]+)"|(\S+)) "\$0" "\$@"/.exec(second);
  if (path.basename(interpreter) === "sh" && trampoline) return { program: (trampoline[1] ?? trampoline[2] ?? trampoline[3])!, args: [] };
  return undefined;
}

/**
 * Toad's command line under the launcher, when the frontend is a Python
 * script; undefined otherwise (the built-in chat checks callers itself, and
 * the host's probe refuses any other frontend that answers without the secret).
 */
export function guardedCommand(frontend: Command): Command | undefined {
  if (!path.isAbsolute(frontend.program)) return undefined;
  const python = pythonOf(frontend.program);
  if (!python) return undefined;
  return { program: python.program, args: [...python.args, "-P", "-c", TOAD_GUARD_PY, frontend.program, ...frontend.args] };
}

/** A command for the log, with the launcher's source shown by name. */
export function describeCommand(command: Command): string {
  return [command.program, ...command.args.map((arg) => (arg === TOAD_GUARD_PY ? "<symposium toad guard>" : arg))].join(" ");
}
