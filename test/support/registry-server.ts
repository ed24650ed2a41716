// A local agent registry for the registry tests: an HTTP server on
// 127.0.0.1 that serves whatever the test puts in `files`, and the
// recording agent packaged as each distribution kind can carry it (a tar.gz
// or zip with an executable, an npm package tarball). The packaged program is
// a small Node script that says on stderr how it was started, then runs the
// reporting agent (test/fixtures/reporting-agent.ts).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import { pathToFileURL } from "node:url";
import * as tar from "tar";
import { REPORTING_AGENT, tempDir } from "./processes.js";

export interface RegistryServer {
  url(file: string): string;
  /** Served bytes by path ("/registry.json"); change them between requests. */
  files: Map<string, Buffer | string>;
  /** Paths asked for, in order. */
  requests: string[];
  /** Paths never answered (a registry that says nothing): the request waits until the server closes. */
  silent: Set<string>;
  /** Paths that send their headers and the first half of their body, then nothing more (a stalled download). */
  stalled: Set<string>;
  /** Paths answered with a 302 to the given Location. */
  redirects: Map<string, string>;
  close(): Promise<void>;
}

export async function startRegistryServer(): Promise<RegistryServer> {
  const files = new Map<string, Buffer | string>();
  const requests: string[] = [];
  const silent = new Set<string>();
  const stalled = new Set<string>();
  const redirects = new Map<string, string>();
  const server = http.createServer((request, response) => {
    const url = request.url ?? "/";
    requests.push(url);
    if (silent.has(url)) return;
    const location = redirects.get(url);
    if (location !== undefined) return void response.writeHead(302, { location }).end();
    const body = files.get(url);
    if (body === undefined) return void response.writeHead(404).end("not found");
    const bytes = Buffer.from(body);
    response.writeHead(200, {
      "content-type": url.endsWith(".json") ? "application/json" : "application/octet-stream",
      "content-length": bytes.length,
    });
    if (stalled.has(url)) return void response.write(bytes.subarray(0, bytes.length >> 1));
    response.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (file) => `http://127.0.0.1:${port}${file}`,
    files,
    requests,
    silent,
    stalled,
    redirects,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The recording agent's script: names how it was started on stderr, then is the reporting agent. */
export function recordingScript(kind: string): string {
  return [
    "#!/usr/bin/env node",
    `process.stderr.write("recording-agent via ${kind} args=" + JSON.stringify(process.argv.slice(2)) + "\\n");`,
    `await import(${JSON.stringify(pathToFileURL(REPORTING_AGENT).href)});`,
    "",
  ].join("\n");
}

/** A .tar.gz holding `bin/recording-agent` (executable) and whatever `extra` entries, with its SHA-256. */
export async function recordingTarball(kind: string): Promise<{ bytes: Buffer; sha256: string }> {
  const folder = tempDir("registry-archive-");
  fs.mkdirSync(path.join(folder, "bin"));
  fs.writeFileSync(path.join(folder, "bin", "recording-agent"), recordingScript(kind), { mode: 0o755 });
  const file = path.join(folder, "agent.tar.gz");
  await tar.c({ gzip: true, file, cwd: folder, portable: true }, ["bin"]);
  const bytes = fs.readFileSync(file);
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** One entry of a hand-built tar: any name, mode, owner, type and link target, as a hostile archive may carry. */
export interface TarEntry {
  name: string;
  content?: string;
  mode?: number;
  uid?: number;
  gid?: number;
  type?: "file" | "directory" | "symlink";
  linkpath?: string;
}

/** A .tar.gz whose one entry is named `entryName` as is (say "../escaped"): node-tar would clean it, so the header is written by hand. */
export function tarballWithEntry(entryName: string, content = "#!/bin/sh\necho pwned\n"): Buffer {
  return tarballOf([{ name: entryName, content }]);
}

/** A .tar.gz of `entries`, every header written by hand (node-tar's writer would clean names, modes and owners). */
export function tarballOf(entries: TarEntry[]): Buffer {
  const blocks = entries.flatMap((entry) => {
    const content = entry.type === "file" || entry.type === undefined ? (entry.content ?? "") : "";
    const body = Buffer.alloc(Math.ceil(Buffer.byteLength(content) / 512) * 512);
    body.write(content);
    return [tarHeader(entry, Buffer.byteLength(content)), body];
  });
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]));
}

function tarHeader(entry: TarEntry, size: number): Buffer {
  const octal = (value: number, width: number): string => `${value.toString(8).padStart(width - 1, "0")}\0`;
  const header = Buffer.alloc(512);
  header.write(entry.name, 0, 100, "utf8");
  header.write(octal(entry.mode ?? 0o755, 8), 100);
  header.write(octal(entry.uid ?? 0, 8), 108);
  header.write(octal(entry.gid ?? 0, 8), 116);
  header.write(octal(size, 12), 124);
  header.write(octal(0, 12), 136); // mtime
  header.write("        ", 148); // checksum placeholder
  header.write({ file: "0", directory: "5", symlink: "2" }[entry.type ?? "file"], 156);
  if (entry.linkpath !== undefined) header.write(entry.linkpath, 157, 100, "utf8");
  header.write("ustar\0", 257);
  header.write("00", 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return header;
}

/** `npm pack` of a one-file package whose bin is the recording agent; returns the tarball's path. */
export function recordingNpmPackage(): string {
  const folder = tempDir("registry-npm-");
  const source = path.join(folder, "package");
  fs.mkdirSync(source);
  fs.writeFileSync(
    path.join(source, "package.json"),
    JSON.stringify({ name: "symposium-recording-agent", version: "1.0.0", type: "module", bin: { "symposium-recording-agent": "agent.mjs" } }),
  );
  fs.writeFileSync(path.join(source, "agent.mjs"), recordingScript("npx"), { mode: 0o755 });
  const name = execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["pack", "--silent", "--pack-destination", folder], {
    cwd: source,
    encoding: "utf8",
    shell: process.platform === "win32",
  }).trim();
  return path.join(folder, name.split("\n").at(-1)!);
}

/** A .zip (stored, no compression) of `entries`, built by hand so a test can name an entry anything; modes are Unix ones. */
export function zipWith(entries: Array<{ name: string; content: string; mode?: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, content, mode = 0o100644 } of entries) {
    const nameBytes = Buffer.from(name);
    const data = Buffer.from(content);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix: the external attributes hold the mode
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function crc32(data: Buffer): number {
  let crc = ~0;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}
