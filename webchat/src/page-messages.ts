// The check of what a chat page sends the server (conversation.ts): each
// websocket message is rebuilt from the fields its type has, or refused with what
// is wrong in it, as webview/src/panel-messages.ts does for the frames between
// VS Code and the page. A page is any program that holds the token: a message of
// the wrong shape is its bug or its attack, never a reason to end the server.

import { isObject } from "../../acp-wire/src/jsonrpc.js";
import { EDIT_RESULTS, type EditResult } from "../../webview/src/panel-messages.js";
import type { ExtensionAction, PageMessage } from "../page/protocol.js";

export type CheckedPageMessage = { message: PageMessage } | { refused: string };

type Fields = Record<string, unknown>;
/** Rebuilds one type's message from `data`, or throws a Refusal saying which field is wrong. */
type Rebuild = (data: Fields) => PageMessage;

class Refusal extends Error {}

const ELICITATION_ACTIONS = ["accept", "decline", "cancel"] as const;
const EXTENSION_ACTIONS = ["list", "enable", "disable", "move", "remove", "add"] as const satisfies readonly ExtensionAction[];

/** What each type of page message holds (protocol.ts's PageMessage). */
const REBUILD: Record<PageMessage["type"], Rebuild> = {
  prompt: (data) => ({
    type: "prompt",
    text: text(data, "text"),
    skipContext: data.skipContext === true,
    ...(data.images === undefined ? {} : { images: images(data.images) }),
  }),
  cancel: () => ({ type: "cancel" }),
  permission: (data) => ({ type: "permission", id: text(data, "id"), optionId: text(data, "optionId") }),
  setMode: (data) => ({ type: "setMode", modeId: text(data, "modeId") }),
  authenticate: (data) => ({ type: "authenticate", signInId: text(data, "signInId"), methodId: text(data, "methodId") }),
  cancelSignIn: (data) => ({ type: "cancelSignIn", signInId: text(data, "signInId") }),
  setConfigOption: (data) => ({
    type: "setConfigOption",
    configId: text(data, "configId"),
    // A boolean option takes true or false; a select, its value's id.
    value: typeof data.value === "boolean" ? data.value : text(data, "value"),
  }),
  listHistory: () => ({ type: "listHistory" }),
  logout: () => ({ type: "logout" }),
  listAgentSessions: (data) => ({ type: "listAgentSessions", ...(data.cursor === undefined ? {} : { cursor: text(data, "cursor") }) }),
  fork: () => ({ type: "fork" }),
  listFiles: () => ({ type: "listFiles" }),
  deleteHistory: (data) => ({ type: "deleteHistory", id: text(data, "id") }),
  chooseAgent: (data) => ({ type: "chooseAgent", id: text(data, "id") }),
  // The shape only; which names, moves and specs are allowed is extensions-manager.ts's changeArgs.
  extensions: (data) => ({
    type: "extensions",
    action: oneOf(data, "action", EXTENSION_ACTIONS),
    ...(data.name === undefined ? {} : { name: text(data, "name") }),
    ...(data.to === undefined ? {} : { to: typeof data.to === "number" ? data.to : oneOf(data, "to", ["up", "down"] as const) }),
    ...(data.spec === undefined ? {} : { spec: text(data, "spec") }),
  }),
  end: () => ({ type: "end" }),
  inEditor: () => ({ type: "inEditor" }),
  editResult: (data) => ({ type: "editResult", id: text(data, "id"), result: oneOf(data, "result", EDIT_RESULTS) satisfies EditResult }),
  elicitation: (data) => ({
    type: "elicitation",
    id: text(data, "id"),
    action: oneOf(data, "action", ELICITATION_ACTIONS),
    // Its fields are checked against the question asked (elicitation-fields.ts's checkContent).
    ...(data.content === undefined ? {} : { content: object(data.content, "content") }),
  }),
};

/** A page's websocket message (its text), checked: the message rebuilt, or what is wrong with it. */
export function checkPageMessage(frame: string): CheckedPageMessage {
  let data: unknown;
  try {
    data = JSON.parse(frame);
  } catch {
    return { refused: "it is not JSON" };
  }
  if (!isObject(data)) return { refused: "it is not a JSON object" };
  const type = data.type;
  if (typeof type !== "string" || !Object.hasOwn(REBUILD, type)) return { refused: `its type ${describe(type)} is not one the page sends` };
  try {
    return { message: REBUILD[type as PageMessage["type"]](data) };
  } catch (error) {
    if (error instanceof Refusal) return { refused: `${type}: ${error.message}` };
    throw error;
  }
}

function text(data: Fields, field: string): string {
  const value = data[field];
  if (typeof value !== "string") throw new Refusal(`"${field}" must be a string, not ${describe(value)}`);
  return value;
}

function oneOf<T extends string>(data: Fields, field: string, values: readonly T[]): T {
  const value = data[field];
  if (!values.includes(value as T)) throw new Refusal(`"${field}" must be one of ${values.join(", ")}, not ${describe(value)}`);
  return value as T;
}

function object(value: unknown, field: string): Fields {
  if (!isObject(value)) throw new Refusal(`"${field}" must be an object, not ${describe(value)}`);
  return value;
}

/** The images' shape only; what they are and how large is prompt-images.ts's check. */
function images(value: unknown): Array<{ mimeType: string; data: string }> {
  if (!Array.isArray(value)) throw new Refusal(`"images" must be an array, not ${describe(value)}`);
  return value.map((image: unknown, index) => {
    const fields = object(image, `images[${index}]`);
    return { mimeType: text(fields, "mimeType"), data: text(fields, "data") };
  });
}

/** A value named in a refusal: its type, or a short quote of a string (a page's text goes to the log, never whole). */
function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === undefined) return "missing";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
