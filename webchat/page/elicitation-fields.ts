// An ACP elicitation's form (docs/webchat.md: elicitation): the agent's
// requestedSchema read into bounded fields, and the user's answers checked
// against them. No DOM and no Node: the server reads the schema and checks
// the answer it forwards; the page checks as the user types. The spec allows
// a flat object of primitive properties only: anything nested, referenced or
// too large is refused whole, with a message saying why.

import type { ElicitationField, ElicitationValue } from "./protocol.js";

export type { ElicitationField, ElicitationValue };

/** Bounds on what a form may ask (a schema beyond them is refused, and the request answered with an error). */
export const ELICITATION_LIMITS = { fields: 32, choices: 200, schemaBytes: 64 * 1024, text: 2_000, answerChars: 64 * 1024 } as const;

/** Names and titles that say a field is a secret (the spec: clients should mask sensitive fields). */
const SECRET_NAME = /pass(word|phrase|wd)?\b|secret|token|api[-_ ]?key|credential|private[-_ ]?key|\bpin\b|otp/i;
const PRIMITIVE = new Set(["string", "number", "integer", "boolean", "array"]);
const KEYS_THAT_NEST = ["properties", "items", "$ref", "$defs", "definitions", "allOf", "anyOf", "not", "if", "then", "else", "additionalProperties"];

/** The form's fields, or why the schema is refused. */
export function elicitationFields(schema: unknown): { fields: ElicitationField[] } | { refused: string } {
  let size: number;
  try {
    size = JSON.stringify(schema ?? {}).length;
  } catch {
    return { refused: "the form's schema cannot be read (it refers to itself)" };
  }
  if (size > ELICITATION_LIMITS.schemaBytes)
    return { refused: `the form's schema is too large (${size} characters; at most ${ELICITATION_LIMITS.schemaBytes})` };
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== "object")) return { refused: "the form's schema is not an object schema" };
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return { refused: "the form's properties are not an object" };
  const names = Object.keys(properties);
  if (names.length > ELICITATION_LIMITS.fields) return { refused: `the form asks for ${names.length} fields (at most ${ELICITATION_LIMITS.fields})` };
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : []);
  const fields: ElicitationField[] = [];
  for (const name of names) {
    const field = readField(name, properties[name], required.has(name));
    if (typeof field === "string") return { refused: field };
    fields.push(field);
  }
  return { fields };
}

function readField(name: string, property: unknown, required: boolean): ElicitationField | string {
  const where = `the field ${JSON.stringify(name.slice(0, 80))}`;
  if (!isObject(property)) return `${where} has no schema`;
  const type = property.type;
  if (typeof type !== "string" || !PRIMITIVE.has(type))
    return `${where} is of type ${JSON.stringify(type)}: a form takes only strings, numbers, booleans and lists of choices`;
  const nested = KEYS_THAT_NEST.find((key) => key in property && !(type === "array" && key === "items"));
  if (nested) return `${where} nests another schema (${nested}): a form takes only flat fields`;
  const label = text(property.title) ?? name;
  const secret = property.format === "password" || property.writeOnly === true || SECRET_NAME.test(name) || SECRET_NAME.test(label);
  const field: ElicitationField = { name, label: label.slice(0, ELICITATION_LIMITS.text), kind: "string", required, secret };
  const description = text(property.description);
  if (description) field.description = description.slice(0, ELICITATION_LIMITS.text);
  if (type === "array") return readMulti(field, property, where);
  if (type === "boolean") field.kind = "boolean";
  else if (type === "number" || type === "integer") {
    field.kind = type;
    field.minimum = finite(property.minimum);
    field.maximum = finite(property.maximum);
  } else {
    const choices = choicesOf(property);
    if (choices === "tooMany") return `${where} offers more than ${ELICITATION_LIMITS.choices} choices`;
    if (choices) {
      field.kind = "choice";
      field.choices = choices;
    }
    field.format = text(property.format);
    field.minLength = count(property.minLength);
    field.maxLength = count(property.maxLength);
    field.pattern = text(property.pattern);
    if (field.pattern !== undefined && !compiles(field.pattern)) return `${where} has a pattern that is not a regular expression`;
  }
  const fallback = property.default;
  if (!secret && fallback !== undefined && fallback !== null && checkValue(field, fallback) === null) field.default = fallback as ElicitationValue;
  return dropUndefined(field);
}

function readMulti(field: ElicitationField, property: Record<string, unknown>, where: string): ElicitationField | string {
  const items = property.items;
  if (!isObject(items)) return `${where} is a list without choices`;
  if (KEYS_THAT_NEST.some((key) => key in items)) return `${where} nests another schema in its items: a form takes only flat fields`;
  const choices = choicesOf({ enum: items.enum, oneOf: items.anyOf ?? items.oneOf });
  if (choices === "tooMany") return `${where} offers more than ${ELICITATION_LIMITS.choices} choices`;
  if (!choices) return `${where} is a list without choices`;
  field.kind = "multi";
  field.choices = choices;
  field.minItems = count(property.minItems);
  field.maxItems = count(property.maxItems);
  const fallback = property.default;
  if (fallback !== undefined && checkValue(field, fallback) === null) field.default = fallback as string[];
  return dropUndefined(field);
}

function choicesOf(property: Record<string, unknown>): Array<{ value: string; title: string }> | "tooMany" | undefined {
  const list = Array.isArray(property.oneOf) ? property.oneOf : Array.isArray(property.enum) ? property.enum : undefined;
  if (!list) return undefined;
  if (list.length > ELICITATION_LIMITS.choices) return "tooMany";
  const choices = list.flatMap((each: unknown) => {
    if (typeof each === "string") return [{ value: each, title: each }];
    if (isObject(each) && typeof each.const === "string") return [{ value: each.const, title: text(each.title) ?? each.const }];
    return [];
  });
  return choices.length > 0 ? choices : undefined;
}

/** Null when `value` fits the field, else what is wrong, in words for the user. */
export function checkValue(field: ElicitationField, value: unknown): string | null {
  switch (field.kind) {
    case "boolean":
      return typeof value === "boolean" ? null : "must be yes or no";
    case "number":
    case "integer":
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.kind === "integer" && !Number.isInteger(value)) return "must be a whole number";
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return null;
    case "multi": {
      if (!Array.isArray(value) || !value.every((each) => field.choices!.some((choice) => choice.value === each))) return "must be among the choices";
      if (field.minItems !== undefined && value.length < field.minItems) return `needs at least ${field.minItems} choices`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `takes at most ${field.maxItems} choices`;
      return null;
    }
    case "choice":
      return typeof value === "string" && field.choices!.some((choice) => choice.value === value) ? null : "must be one of the choices";
    case "string":
      return checkString(field, value);
  }
}

function checkString(field: ElicitationField, value: unknown): string | null {
  if (typeof value !== "string") return "must be text";
  if (value.length > ELICITATION_LIMITS.answerChars) return `is too long (at most ${ELICITATION_LIMITS.answerChars} characters)`;
  if (field.minLength !== undefined && value.length < field.minLength) return `needs at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && value.length > field.maxLength) return `takes at most ${field.maxLength} characters`;
  if (field.pattern !== undefined) {
    // The agent's pattern runs on short answers only: a bad pattern cannot stall the chat on a long one.
    if (value.length > 1024) return "is too long to check against its pattern (at most 1024 characters)";
    if (!new RegExp(field.pattern, "u").test(value)) return "does not have the expected form";
  }
  if (field.format === "email" && !/^[^\s@]+@[^\s@]+$/.test(value)) return "must be an email address";
  if (field.format === "uri" && !URL.canParse(value)) return "must be an address (URI)";
  if (field.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return "must be a date (YYYY-MM-DD)";
  if (field.format === "date-time" && Number.isNaN(Date.parse(value))) return "must be a date and time";
  return null;
}

/** The answer to send: only the form's fields, each checked; an empty optional field is left out. */
export function checkContent(fields: ElicitationField[], content: unknown): { content: Record<string, ElicitationValue> } | { problem: string } {
  if (!isObject(content)) return { problem: "the answer is not a set of fields" };
  const checked: Record<string, ElicitationValue> = {};
  for (const field of fields) {
    const value = Object.hasOwn(content, field.name) ? content[field.name] : undefined;
    if (value === undefined || value === "") {
      if (field.required) return { problem: `${field.label} is required` };
      continue;
    }
    const problem = checkValue(field, value);
    if (problem !== null) return { problem: `${field.label} ${problem}` };
    checked[field.name] = value as ElicitationValue;
  }
  return { content: checked };
}

/** Only http and https open outside the frame (never `javascript:`, `file:`, `data:`, …). */
export function openableUrl(url: unknown): URL | null {
  if (typeof url !== "string" || url.length > 8192 || !URL.canParse(url)) return null;
  const parsed = new URL(url);
  return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function compiles(pattern: string): boolean {
  if (pattern.length > 1000) return false;
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

function dropUndefined(field: ElicitationField): ElicitationField {
  for (const key of Object.keys(field) as Array<keyof ElicitationField>) if (field[key] === undefined) delete field[key];
  return field;
}
