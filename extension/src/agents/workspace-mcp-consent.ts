// The workspace's `.vscode/mcp.json` servers for the agent, with the user's
// consent (docs/extensions.md): none in Restricted Mode; the user asked once
// per workspace in a modal, the answer remembered in workspaceState with the
// servers it was given for (a file that names other servers is asked about
// again); each `${input:…}` asked once and kept in SecretStorage. What the file
// holds is checked by workspace-mcp.ts; what it refuses is said, and never run.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { NOTICE_SENTENCE_MAX, noticeList, noticeText } from "../notice-text.js";
import type { PersistentState } from "../persistent-state.js";
import {
  MAX_WORKSPACE_MCP_BYTES,
  WORKSPACE_MCP_FILE,
  describeServer,
  inputsUsed,
  parseWorkspaceMcp,
  toAcpServer,
  type AcpMcpServer,
  type McpInput,
  type WorkspaceServer,
} from "./workspace-mcp.js";

const ALLOW = "Allow";
const DENY = "Don't Allow";

interface FolderServers {
  folder: string;
  servers: WorkspaceServer[];
  inputs: McpInput[];
}

interface Consent {
  allowed: boolean;
  /** What the answer was given for: a hash of the servers as the file defines them. */
  fingerprint: string;
}

export interface WorkspaceMcpDeps {
  state: PersistentState;
  log: vscode.LogOutputChannel;
}

/** What this workspace's secrets are kept under: a hash of its workspace file or folders, so two projects' inputs of one id stay apart. */
function workspaceKey(): string {
  const where = vscode.workspace.workspaceFile?.toString() ?? (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString()).join("\n");
  return crypto.createHash("sha256").update(where).digest("hex").slice(0, 32);
}

/** The servers to give the agent (ACP's shape), after asking what is to be asked; none when the user says no or the workspace is not trusted. */
export async function workspaceMcpServers(deps: WorkspaceMcpDeps): Promise<AcpMcpServer[]> {
  if (!vscode.workspace.isTrusted) {
    deps.log.info(`Restricted Mode: no ${WORKSPACE_MCP_FILE} server is given to the agent`);
    return [];
  }
  const found = readFolders(deps.log);
  if (found.length === 0) return [];
  if (!(await consented(deps, found))) return [];
  const servers: AcpMcpServer[] = [];
  for (const { folder, servers: defined, inputs } of found) {
    for (const server of defined) {
      const values = await inputValues(deps, server, inputs);
      if (values) servers.push(toAcpServer(server, folder, values));
      else deps.log.warn(`${WORKSPACE_MCP_FILE} server '${server.name}' not given: an input it needs was not entered`);
    }
  }
  deps.log.info(`${WORKSPACE_MCP_FILE}: giving the agent ${servers.map((server) => server.name).join(", ") || "no server"}`);
  return servers;
}

/** Each local workspace folder's file, checked; what is refused goes to the log and, once, to the user. */
function readFolders(log: vscode.LogOutputChannel): FolderServers[] {
  const found: FolderServers[] = [];
  const refused: string[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== "file") continue;
    const text = readInside(folder.uri.fsPath, refused);
    if (text === undefined) continue;
    const file = path.join(folder.uri.fsPath, WORKSPACE_MCP_FILE);
    const parsed = parseWorkspaceMcp(text, file);
    refused.push(...parsed.refused);
    if (parsed.servers.length > 0) found.push({ folder: folder.uri.fsPath, servers: parsed.servers, inputs: parsed.inputs });
  }
  for (const reason of refused) log.warn(reason);
  if (refused.length > 0) {
    void vscode.window.showWarningMessage(
      `Symposium did not give the agent some of this workspace's MCP servers: ${noticeText(refused[0] ?? "", NOTICE_SENTENCE_MAX)}${refused.length > 1 ? ` (and ${refused.length - 1} more in the log)` : ""}`,
    );
  }
  return found;
}

/** The file's text when it is a regular file inside the folder (a link out of the project is not followed) and not too big. */
function readInside(folder: string, refused: string[]): string | undefined {
  const file = path.join(folder, WORKSPACE_MCP_FILE);
  try {
    const real = fs.realpathSync(file);
    const root = fs.realpathSync(folder);
    if (path.relative(root, real).startsWith("..") || path.isAbsolute(path.relative(root, real))) {
      refused.push(`${file}: links outside the workspace folder; not read`);
      return undefined;
    }
    const stat = fs.statSync(real);
    if (!stat.isFile()) return undefined;
    if (stat.size > MAX_WORKSPACE_MCP_BYTES) {
      refused.push(`${file}: larger than ${MAX_WORKSPACE_MCP_BYTES / 1024} KiB; not read`);
      return undefined;
    }
    return fs.readFileSync(real, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") refused.push(`${file}: not readable (${(error as Error).message})`);
    return undefined;
  }
}

/** The remembered answer when it was given for these servers; else the user's, asked in a modal (a dismissed modal: none, asked again next time). */
async function consented(deps: WorkspaceMcpDeps, found: FolderServers[]): Promise<boolean> {
  const fingerprint = crypto
    .createHash("sha256")
    .update(JSON.stringify(found.map(({ folder, servers }) => [folder, servers])))
    .digest("hex");
  const remembered = deps.state.workspaceMcpConsent as Partial<Consent> | undefined;
  if (remembered?.fingerprint === fingerprint && typeof remembered.allowed === "boolean") return remembered.allowed;
  const described = found.flatMap(({ servers }) => servers.map(describeServer));
  const answer = await vscode.window.showWarningMessage(
    `Give this workspace's MCP servers (${WORKSPACE_MCP_FILE}) to the agent?`,
    {
      modal: true,
      detail: `The agent would start these programs and reach these addresses:\n${noticeList(described, { separator: "\n" })}\n\nAllow only if you trust this project. Asked again if the file's servers change.`,
    },
    ALLOW,
    DENY,
  );
  if (answer === undefined) return false;
  await deps.state.setWorkspaceMcpConsent({ allowed: answer === ALLOW, fingerprint } satisfies Consent);
  deps.log.info(`${WORKSPACE_MCP_FILE}: the user ${answer === ALLOW ? "allowed" : "did not allow"} this workspace's MCP servers`);
  return answer === ALLOW;
}

/** The values of the inputs `server` uses: kept ones from SecretStorage, the rest asked once; undefined when the user cancels one. */
async function inputValues(deps: WorkspaceMcpDeps, server: WorkspaceServer, inputs: McpInput[]): Promise<Map<string, string> | undefined> {
  const values = new Map<string, string>();
  for (const id of inputsUsed(server)) {
    const kept = await deps.state.mcpInput(workspaceKey(), id);
    if (kept !== undefined) {
      values.set(id, kept);
      continue;
    }
    const input = inputs.find((candidate) => candidate.id === id);
    const value = await vscode.window.showInputBox({
      title: `MCP server ${noticeText(server.name)}`,
      prompt: noticeText(input?.description ?? id),
      password: input?.password ?? false,
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    await deps.state.setMcpInput(workspaceKey(), id, value);
    values.set(id, value);
  }
  return values;
}
