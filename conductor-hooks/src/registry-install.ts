// Installing what an AgentConfig's `cargo` or `binary` distribution names,
// into a per-version cache: `<config folder>/cache/agents/<id>/<version>/`.
// Beside the config file rather than ~/.cache: it follows $SYMPOSIUM_CONFIG
// (tests, several profiles), Windows has no ~/.cache, and the seed's
// ~/.symposium/bin/<id> would share a folder with the launcher
// (launcher.ts), so an agent with the id "symposium-conductor" could replace it.
//
// An install is staged in a temporary folder and renamed into place whole;
// a failed one leaves nothing. Archive entries are checked before anything is
// unpacked: absolute paths, "..", links leaving the folder and device files
// refuse the whole archive. When a version is installed, the id's other
// versions are removed (the seed's "no accumulation").

import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import * as tar from "tar";
import yauzl from "yauzl";
import { AgentFormatError, safeRelativePath, type AgentConfig, type BinaryTarget, type CargoDistribution } from "./registry-format.js";

export class InstallError extends Error {
  override name = "InstallError";
}

/** Larger downloads are refused (agents ship as single binaries of tens of MB). */
export const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;
/** Larger unpacked totals are refused (a zip or gzip bomb). */
const MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export function cacheRoot(configPath: string): string {
  return path.join(path.dirname(configPath), "cache", "agents");
}

/** The unpacked archive's folder for this platform's target; downloads and unpacks it when missing. */
export async function installBinary(agent: AgentConfig, target: BinaryTarget, root: string, log: (message: string) => void): Promise<string> {
  // Without a version the archive's URL names the folder: a new URL is a new version.
  const version = agent.version ?? createHash("sha256").update(target.archive).digest("hex").slice(0, 16);
  const folder = path.join(root, agent.id, version);
  if (fs.existsSync(path.join(folder, target.cmd))) return folder;
  log(`installing ${agent.id} ${version} from ${target.archive}`);
  await stageInto(folder, async (staging) => {
    const archive = path.join(staging, `.download-${randomBytes(4).toString("hex")}`);
    await download(target.archive, archive, target.sha256);
    await unpack(archive, target, staging);
    fs.rmSync(archive);
    const command = path.join(staging, target.cmd);
    if (!fs.existsSync(command)) throw new InstallError(`${agent.id}: the archive ${target.archive} has no '${target.cmd}' (its "cmd")`);
    if (process.platform !== "win32") fs.chmodSync(command, fs.statSync(command).mode | 0o111);
  });
  removeOtherVersions(path.join(root, agent.id), version, log);
  return folder;
}

/** Runs `fill` on a fresh staging folder beside `folder`, then renames it into place; removes it on failure. */
async function stageInto(folder: string, fill: (staging: string) => Promise<void>): Promise<void> {
  fs.mkdirSync(path.dirname(folder), { recursive: true, mode: 0o700 });
  const staging = `${path.dirname(folder)}${path.sep}.staging-${process.pid}-${randomBytes(4).toString("hex")}`;
  fs.mkdirSync(staging, { mode: 0o700 });
  try {
    await fill(staging);
    fs.rmSync(folder, { recursive: true, force: true });
    fs.renameSync(staging, folder);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

function removeOtherVersions(idFolder: string, keep: string, log: (message: string) => void): void {
  for (const entry of fs.readdirSync(idFolder)) {
    if (entry === keep || entry.startsWith(".staging-")) continue;
    fs.rmSync(path.join(idFolder, entry), { recursive: true, force: true });
    log(`removed the old version ${entry} of ${path.basename(idFolder)}`);
  }
}

/** Streams `url` to `file`, refusing more than MAX_ARCHIVE_BYTES and a checksum that differs. */
async function download(url: string, file: string, sha256: string | undefined): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), redirect: "follow" });
  } catch (error) {
    throw new InstallError(`cannot download ${url}: ${describeCause(error)}`);
  }
  if (!response.ok || response.body === null) throw new InstallError(`cannot download ${url}: HTTP ${response.status}`);
  if (Number(response.headers.get("content-length") ?? 0) > MAX_ARCHIVE_BYTES) {
    throw new InstallError(`refused ${url}: it is larger than ${MAX_ARCHIVE_BYTES} bytes`);
  }
  const hash = createHash("sha256");
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > MAX_ARCHIVE_BYTES) return done(new InstallError(`refused ${url}: it is larger than ${MAX_ARCHIVE_BYTES} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>), counter, fs.createWriteStream(file, { mode: 0o600 }));
  const actual = hash.digest("hex");
  if (sha256 !== undefined && actual !== sha256) throw new InstallError(`refused ${url}: its SHA-256 is ${actual}, the registry says ${sha256}`);
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
  await tar.x({ file: archive, cwd: into, strict: true });
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

/** The path of the crate's binary, installed with cargo binstall (or cargo install) into the cache when missing. */
export async function installCargo(agent: AgentConfig, cargo: CargoDistribution, root: string, log: (message: string) => void): Promise<string> {
  const version = cargo.version ?? (await latestStableVersion(cargo.crate));
  const binary = cargo.binary ?? (await onlyBinary(cargo.crate, version));
  const folder = path.join(root, agent.id, version);
  const program = path.join(folder, "bin", process.platform === "win32" ? `${binary}.exe` : binary);
  if (fs.existsSync(program)) return program;
  log(`installing ${cargo.crate} ${version} with cargo into ${folder}`);
  await stageInto(folder, async (staging) => {
    const spec = `${cargo.crate}@${version}`;
    const binstalled = await runCargo(["binstall", "--no-confirm", "--root", staging, spec]).then(
      () => true,
      () => false,
    );
    if (!binstalled) await runCargo(["install", "--root", staging, spec]);
  });
  if (!fs.existsSync(program)) throw new InstallError(`${agent.id}: cargo installed ${cargo.crate} ${version}, but it has no binary '${binary}'`);
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
  const info = (await crateJson(`${CRATES_API}/${crate}`)).crate as { max_stable_version?: string } | undefined;
  if (!info?.max_stable_version) throw new InstallError(`crates.io lists no stable version of ${crate}`);
  return info.max_stable_version;
}

async function onlyBinary(crate: string, version: string): Promise<string> {
  const info = (await crateJson(`${CRATES_API}/${crate}/${version}`)).version as { bin_names?: string[] } | undefined;
  const names = info?.bin_names ?? [];
  if (names.length !== 1)
    throw new InstallError(
      `${crate} ${version} has ${names.length === 0 ? "no binaries" : `several binaries (${names.join(", ")})`}: set "binary" in its cargo distribution`,
    );
  return names[0]!;
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
