// Installing what an AgentConfig's `cargo` or `binary` distribution names,
// into a per-version cache: `<config folder>/cache/agents/<id>/<version>/`.
// Beside the config file rather than ~/.cache: it follows $SYMPOSIUM_CONFIG
// (tests, several profiles), Windows has no ~/.cache, and Symposium's
// ~/.symposium/bin/<id> would share a folder with the launcher
// (launcher.ts), so an agent with the id "symposium-conductor" could replace it.
//
// An install is staged in a temporary folder and renamed into place whole,
// only where no folder is yet: when another process (a second window, a
// restart) put the same version there first, that one is used and nothing is
// removed under it. A failed install leaves nothing. Archive entries are
// checked before anything is unpacked: absolute paths, "..", links leaving the
// folder and device files refuse the whole archive; after unpacking, every
// link's real path is checked (a chain of links each lexically inside can lead
// out), and the command's real path must be inside before it is made
// executable or run. Modes lose setuid, setgid and sticky bits; owners are
// never taken from the archive. When a version is installed, the id's other
// versions are removed (Symposium's agent registry design: "no accumulation").

import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import * as tar from "tar";
import yauzl from "yauzl";
import {
  AgentFormatError,
  archiveUrlProblem,
  checkedBinaryName,
  checkedVersion,
  safeRelativePath,
  UNVERIFIED_DOWNLOAD,
  type AgentConfig,
  type BinaryTarget,
  type CargoDistribution,
} from "./registry-format.js";

export class InstallError extends Error {
  override name = "InstallError";
}

/** Larger downloads are refused (agents ship as single binaries of tens of MB). */
export const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;
/** Larger unpacked totals are refused (a zip or gzip bomb). */
const MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;
/** A download that receives nothing for this long is given up (override: $SYMPOSIUM_DOWNLOAD_STALL_MS). */
const STALL_TIMEOUT_MS = 30_000;
export const STALL_TIMEOUT_ENV = "SYMPOSIUM_DOWNLOAD_STALL_MS";
/** Redirects followed, each to an https URL (GitHub's release downloads redirect to another host once). */
const MAX_REDIRECTS = 5;
/** crates.io's API (override: $SYMPOSIUM_CRATES_API, a mirror). */
export const CRATES_API_ENV = "SYMPOSIUM_CRATES_API";

export function cacheRoot(configPath: string): string {
  return path.join(path.dirname(configPath), "cache", "agents");
}

/** The unpacked archive's folder for this platform's target; downloads and unpacks it when missing. */
export async function installBinary(agent: AgentConfig, target: BinaryTarget, root: string, log: (message: string) => void): Promise<string> {
  // Without a version the archive's URL names the folder: a new URL is a new version.
  const version = agent.version ?? createHash("sha256").update(target.archive).digest("hex").slice(0, 16);
  const folder = path.join(root, agent.id, version);
  const installed = (): boolean => fs.existsSync(path.join(folder, target.cmd));
  if (installed()) {
    commandInside(folder, target.cmd, `${agent.id}: the installed command`);
    return folder;
  }
  // The built-in chat shows "Installing <id> <version>…" from this line (webchat/src/agent-session.ts).
  log(`installing ${agent.id} ${version} from ${target.archive}`);
  if (target.sha256 === undefined) log(`${agent.id}: ${UNVERIFIED_DOWNLOAD}; what runs is whatever ${new URL(target.archive).host} serves`);
  await stageInto(folder, installed, async (staging) => {
    const archive = path.join(staging, `.download-${randomBytes(4).toString("hex")}`);
    await download(target.archive, archive, target.sha256);
    await unpack(archive, target, staging);
    fs.rmSync(archive);
    linksInside(staging, target.archive);
    if (!fs.existsSync(path.join(staging, target.cmd))) throw new InstallError(`${agent.id}: the archive ${target.archive} has no '${target.cmd}' (its "cmd")`);
    const command = commandInside(staging, target.cmd, `refused ${target.archive}: its "cmd"`);
    if (process.platform !== "win32") fs.chmodSync(command, fs.statSync(command).mode | 0o111);
  });
  removeOtherVersions(path.join(root, agent.id), version, log);
  return folder;
}

/** The real path of `folder`/`cmd`: a regular file whose real path is inside `folder`, or an InstallError. */
function commandInside(folder: string, cmd: string, what: string): string {
  const real = realPathInside(folder, path.join(folder, cmd));
  if (real === null) throw new InstallError(`${what} '${cmd}' leads outside the agent's folder ${folder} through a link`);
  if (!fs.statSync(real).isFile()) throw new InstallError(`${what} '${cmd}' is not a file`);
  return real;
}

/**
 * The real path of `file` when it is inside `folder`'s real path; null when it leads out, loops or dangles.
 * The system's realpath: Node's own (fs.realpathSync) joins a link's target to the path lexically, so
 * `b → a/..` with `a → .` comes out inside when it is not.
 */
function realPathInside(folder: string, file: string): string | null {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    return null;
  }
  const base = fs.realpathSync.native(folder);
  return real === base || real.startsWith(base.endsWith(path.sep) ? base : base + path.sep) ? real : null;
}

/**
 * Every link in the unpacked `folder` leads to something inside it. The entry
 * check before unpacking reads each link alone; `a→.`, `b→a/..` passes it
 * and still leads out, so the real paths are checked once all are written.
 */
function linksInside(folder: string, url: string): void {
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const link = path.join(entry.parentPath ?? entry.path, entry.name);
    if (realPathInside(folder, link) === null) {
      throw new InstallError(`refused ${url}: the link '${path.relative(folder, link)}' leads outside the agent's folder (or nowhere)`);
    }
  }
}

/**
 * Runs `fill` on a fresh staging folder beside `folder`, then renames it into
 * place, only where there is no folder: another process may be running the
 * agent from it. When another install got there first, its folder is used and
 * ours removed. `fill` checks the command is there, so a folder in place is
 * whole; one without its command (an older build's, or tampered with) is
 * moved aside first, never emptied in place.
 */
async function stageInto(folder: string, installed: () => boolean, fill: (staging: string) => Promise<void>): Promise<void> {
  fs.mkdirSync(path.dirname(folder), { recursive: true, mode: 0o700 });
  const staging = stagingName(folder);
  fs.mkdirSync(staging, { mode: 0o700 });
  try {
    await fill(staging);
    if (renamedInto(staging, folder)) return;
    if (!installed()) {
      moveAsideAndRemove(folder);
      if (renamedInto(staging, folder)) return;
    }
    if (!installed()) throw new InstallError(`another install left ${folder} without its command; remove that folder and try again`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** A name beside `folder` that removeOtherVersions and other installs leave alone. */
function stagingName(folder: string): string {
  return `${path.dirname(folder)}${path.sep}.staging-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/** Renames `staging` to `folder`; false when a folder is already there (another install's). */
function renamedInto(staging: string, folder: string): boolean {
  try {
    fs.renameSync(staging, folder);
    return true;
  } catch (error) {
    // ENOTEMPTY/EEXIST on POSIX, EPERM/EACCES on Windows: the name is taken.
    if (fs.existsSync(folder)) return false;
    throw error;
  }
}

/** Renames `folder` out of the way (atomic: a process starting from it sees the old folder or none), then removes it. */
function moveAsideAndRemove(folder: string): void {
  const aside = stagingName(folder);
  try {
    fs.renameSync(folder, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  fs.rmSync(aside, { recursive: true, force: true });
}

function removeOtherVersions(idFolder: string, keep: string, log: (message: string) => void): void {
  for (const entry of fs.readdirSync(idFolder)) {
    if (entry === keep || entry.startsWith(".staging-")) continue;
    try {
      moveAsideAndRemove(path.join(idFolder, entry));
      log(`removed the old version ${entry} of ${path.basename(idFolder)}`);
    } catch (error) {
      // Windows refuses to move a program that is running: the next install tries again.
      log(`could not remove the old version ${entry} of ${path.basename(idFolder)} yet: ${(error as Error).message}`);
    }
  }
}

/** Streams `url` to `file`, refusing more than MAX_ARCHIVE_BYTES, a checksum that differs, and a download that stalls. */
async function download(url: string, file: string, sha256: string | undefined): Promise<void> {
  const stall = stallWatch();
  const signal = AbortSignal.any([stall.signal, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)]);
  const hash = createHash("sha256");
  try {
    const response = await fetchArchive(url, signal);
    if (!response.ok || response.body === null) throw new InstallError(`cannot download ${url}: HTTP ${response.status}`);
    if (Number(response.headers.get("content-length") ?? 0) > MAX_ARCHIVE_BYTES) {
      throw new InstallError(`refused ${url}: it is larger than ${MAX_ARCHIVE_BYTES} bytes`);
    }
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        stall.progress();
        bytes += chunk.length;
        if (bytes > MAX_ARCHIVE_BYTES) return done(new InstallError(`refused ${url}: it is larger than ${MAX_ARCHIVE_BYTES} bytes`));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    stall.progress();
    await pipeline(
      Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>),
      counter,
      fs.createWriteStream(file, { mode: 0o600 }),
    );
  } catch (error) {
    if (stall.signal.aborted)
      throw new InstallError(`the download of ${url} stalled: nothing arrived for ${stall.ms / 1000} s. Check the connection and try again.`);
    if (error instanceof InstallError) throw error;
    throw new InstallError(`cannot download ${url}: ${describeCause(error)}`);
  } finally {
    stall.stop();
  }
  const actual = hash.digest("hex");
  if (sha256 !== undefined && actual !== sha256) throw new InstallError(`refused ${url}: its SHA-256 is ${actual}, the registry says ${sha256}`);
}

/** An abort signal that fires when `progress` has not been called for the stall timeout. */
function stallWatch(): { signal: AbortSignal; ms: number; progress(): void; stop(): void } {
  const ms = Number(process.env[STALL_TIMEOUT_ENV]) > 0 ? Number(process.env[STALL_TIMEOUT_ENV]) : STALL_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const progress = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(), ms);
  };
  progress();
  return { signal: controller.signal, ms, progress, stop: () => clearTimeout(timer) };
}

/**
 * GET `url`, following at most MAX_REDIRECTS redirects by hand: each must go
 * to an https URL (fetch's own "follow" would take http too). Another host is
 * followed: the host the registry named decides where its file lives, as it
 * decides the file (GitHub's releases are served from another host).
 */
async function fetchArchive(url: string, signal: AbortSignal): Promise<Response> {
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(current, { signal, redirect: "manual" });
    if (response.status < 300 || response.status > 399 || response.status === 304) return response;
    await response.body?.cancel();
    const location = response.headers.get("location");
    if (location === null) throw new InstallError(`cannot download ${url}: ${current} answered HTTP ${response.status} without a Location`);
    if (redirects === MAX_REDIRECTS) throw new InstallError(`refused ${url}: more than ${MAX_REDIRECTS} redirects`);
    const next = new URL(location, current);
    const problem = archiveUrlProblem(next);
    if (problem !== null) throw new InstallError(`refused ${url}: it redirects to ${problem}`);
    current = next.href;
  }
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return cause ?? (error as Error).message;
}

async function unpack(archive: string, target: BinaryTarget, into: string): Promise<void> {
  const name = new URL(target.archive).pathname.toLowerCase();
  if (name.endsWith(".tar.gz") || name.endsWith(".tgz") || name.endsWith(".tar")) return unpackTar(archive, into, target.archive);
  if (name.endsWith(".zip")) return unpackZip(archive, into, target.archive);
  if (/\.(tar\.bz2|tbz2|tar\.xz|dmg|pkg|deb|rpm|msi|appimage)$/.test(name)) {
    throw new InstallError(`${target.archive}: this archive format is not supported here (use .tar.gz, .tgz, .zip or a plain executable)`);
  }
  // A plain executable: it is the command itself.
  const command = path.join(into, target.cmd);
  fs.mkdirSync(path.dirname(command), { recursive: true });
  fs.renameSync(archive, command);
  fs.writeFileSync(archive, ""); // the caller removes the download
}

/** Lists every entry first; one unsafe entry refuses the archive before anything is written. */
async function unpackTar(archive: string, into: string, url: string): Promise<void> {
  const problems: string[] = [];
  let total = 0;
  await tar.t({
    file: archive,
    onReadEntry: (entry) => {
      total += entry.size ?? 0;
      const problem = unsafeEntry(entry.path, entry.type, entry.linkpath);
      if (problem !== null) problems.push(problem);
    },
  });
  if (problems.length > 0) throw new InstallError(`refused ${url}: ${problems.slice(0, 3).join("; ")}`);
  if (total > MAX_UNPACKED_BYTES) throw new InstallError(`refused ${url}: it unpacks to more than ${MAX_UNPACKED_BYTES} bytes`);
  await tar.x({
    file: archive,
    cwd: into,
    strict: true,
    // Never the archive's owner (node-tar keeps it when run as root), never setuid, setgid or sticky bits.
    preserveOwner: false,
    filter: (_path, entry) => {
      if (typeof entry.mode === "number") entry.mode &= 0o777;
      return true;
    },
  });
}

const TAR_TYPES = new Set(["File", "OldFile", "ContiguousFile", "Directory", "SymbolicLink"]);

/** Why an archive entry may not be unpacked, or null. */
function unsafeEntry(entryPath: string, type: string, linkpath?: string): string | null {
  try {
    const inside = safeRelativePath(entryPath, "entry");
    if (!TAR_TYPES.has(type)) return `the entry '${entryPath}' is a ${type}`;
    if (type === "SymbolicLink") {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(inside), (linkpath ?? "").replace(/\\/g, "/")));
      if (path.posix.isAbsolute(linkpath ?? "") || target === ".." || target.startsWith("../")) return `the link '${entryPath}' points outside the archive`;
    }
    return null;
  } catch (error) {
    if (error instanceof AgentFormatError) return `the entry '${entryPath}' would be written outside the folder`;
    throw error;
  }
}

function unpackZip(archive: string, into: string, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Not autoClose: the entries are read in a second pass, after every one was checked.
    yauzl.open(archive, { lazyEntries: true, autoClose: false }, (openError, zip) => {
      if (openError || !zip) return reject(new InstallError(`refused ${url}: ${openError?.message ?? "not a zip file"}`));
      const entries: yauzl.Entry[] = [];
      let total = 0;
      const fail = (error: unknown): void => {
        zip.close();
        reject(error instanceof InstallError ? error : new InstallError(`refused ${url}: ${(error as Error).message}`));
      };
      zip.on("error", fail);
      zip.on("entry", (entry: yauzl.Entry) => {
        const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
        if (mode === 0o120000) return fail(new InstallError(`refused ${url}: the entry '${entry.fileName}' is a link (not unpacked from zip archives)`));
        const problem = unsafeEntry(entry.fileName, entry.fileName.endsWith("/") ? "Directory" : "File");
        if (problem !== null) return fail(new InstallError(`refused ${url}: ${problem}`));
        total += entry.uncompressedSize;
        if (total > MAX_UNPACKED_BYTES) return fail(new InstallError(`refused ${url}: it unpacks to more than ${MAX_UNPACKED_BYTES} bytes`));
        entries.push(entry);
        zip.readEntry();
      });
      // Every entry was checked: now the second pass writes them.
      zip.on(
        "end",
        () =>
          void writeZipEntries(zip, entries, into).then(() => {
            zip.close();
            resolve();
          }, fail),
      );
      zip.readEntry();
    });
  });
}

async function writeZipEntries(zip: yauzl.ZipFile, entries: yauzl.Entry[], into: string): Promise<void> {
  for (const entry of entries) {
    const target = path.join(into, safeRelativePath(entry.fileName, "entry"));
    if (entry.fileName.endsWith("/")) {
      fs.mkdirSync(target, { recursive: true });
      continue;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (error, read) => (error || !read ? reject(error ?? new Error(`cannot read ${entry.fileName} in the archive`)) : resolve(read))),
    );
    const mode = (entry.externalFileAttributes >>> 16) & 0o777;
    await pipeline(stream, fs.createWriteStream(target, { mode: mode || 0o644 }));
  }
}

// ---- cargo ----

const CRATES_API = "https://crates.io/api/v1/crates";

function cratesApi(): string {
  return process.env[CRATES_API_ENV] ?? CRATES_API;
}

/** The path of the crate's binary, installed with cargo binstall (or cargo install) into the cache when missing. */
export async function installCargo(agent: AgentConfig, cargo: CargoDistribution, root: string, log: (message: string) => void): Promise<string> {
  const version = cargo.version ?? (await latestStableVersion(cargo.crate));
  const binary = cargo.binary ?? (await onlyBinary(cargo.crate, version));
  const folder = path.join(root, agent.id, version);
  const program = path.join(folder, "bin", process.platform === "win32" ? `${binary}.exe` : binary);
  const installed = (): boolean => fs.existsSync(program);
  if (installed()) return program;
  log(`installing ${agent.id} ${version} with cargo (the crate ${cargo.crate}) into ${folder}`);
  await stageInto(folder, installed, async (staging) => {
    const spec = `${cargo.crate}@${version}`;
    const binstalled = await runCargo(["binstall", "--no-confirm", "--root", staging, spec]).then(
      () => true,
      () => false,
    );
    if (!binstalled) await runCargo(["install", "--root", staging, spec]);
    // Checked before the rename: a folder in place always has its program.
    if (!fs.existsSync(path.join(staging, path.relative(folder, program)))) {
      throw new InstallError(`${agent.id}: cargo installed ${cargo.crate} ${version}, but it has no binary '${binary}'`);
    }
  });
  removeOtherVersions(path.join(root, agent.id), version, log);
  return program;
}

async function crateJson(url: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    // crates.io asks every client to say who it is.
    response = await fetch(url, { headers: { "user-agent": "symposium-conductor (https://github.com/symposium-dev)" }, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new InstallError(`cannot reach crates.io (${url}): ${describeCause(error)}; give "version" and "binary" in the cargo distribution to skip this`);
  }
  if (!response.ok) throw new InstallError(`crates.io answered HTTP ${response.status} for ${url}`);
  return (await response.json()) as Record<string, unknown>;
}

async function latestStableVersion(crate: string): Promise<string> {
  const info = (await crateJson(`${cratesApi()}/${crate}`)).crate as { max_stable_version?: unknown } | undefined;
  if (typeof info?.max_stable_version !== "string" || info.max_stable_version === "") throw new InstallError(`crates.io lists no stable version of ${crate}`);
  // It names a folder in the cache: held to the registry's own rule for versions.
  return fromCratesIo(() => checkedVersion(info.max_stable_version as string, `crates.io's max_stable_version of ${crate}`));
}

async function onlyBinary(crate: string, version: string): Promise<string> {
  const info = (await crateJson(`${cratesApi()}/${crate}/${version}`)).version as { bin_names?: unknown } | undefined;
  const names = Array.isArray(info?.bin_names) ? info.bin_names : [];
  if (names.length !== 1)
    throw new InstallError(
      `${crate} ${version} has ${names.length === 0 ? "no binaries" : `several binaries (${names.map(String).join(", ")})`}: set "binary" in its cargo distribution`,
    );
  const name: unknown = names[0];
  // It names a file in the cache: held to the registry's own rule for binaries.
  return fromCratesIo(() => checkedBinaryName(typeof name === "string" ? name : JSON.stringify(name), `crates.io's bin_names of ${crate} ${version}`));
}

/** A crates.io value checked: a value that fails is refused as an install error, before any path is made of it. */
function fromCratesIo(check: () => string): string {
  try {
    return check();
  } catch (error) {
    if (error instanceof AgentFormatError) throw new InstallError(`refused ${error.message}`);
    throw error;
  }
}

/** cargo's own output goes to stderr: stdout carries ACP. */
function runCargo(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile("cargo", args, { maxBuffer: 16 * 1024 * 1024 }, (error) =>
      error ? reject(new InstallError(`cargo ${args[0]} failed: ${error.message}`)) : resolve(),
    );
    child.stdout?.pipe(process.stderr);
    child.stderr?.pipe(process.stderr);
  });
}
