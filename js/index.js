// agentbeats-spec for JavaScript: validate(kind, value) with this package's codes, and type guards.
// The validators are compiled ahead of time (validators.js, Ajv standalone code): nothing compiles at run time.
import { BY_ID } from "./validators.js";
import { GUARDS, KEYWORDS, KINDS, MAX_DEPTH, RELATIVE_PATH_PATTERN, SEVERITIES, TOO_DEEP } from "./kinds.js";

export { KINDS };

function escape(token) {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

// Every table is looked up by own property only: a name from a document ("__proto__", "constructor", "toString")
// is never one of Object.prototype's members (the generated tables have no prototype either).
function own(table, name) {
  return typeof name === "string" && Object.hasOwn(table, name) ? table[name] : undefined;
}

function severity(code) {
  return own(SEVERITIES, code) ?? "error";
}

function kindEntry(kind) {
  const entry = own(KINDS, kind);
  if (entry === undefined) throw new TypeError(`unknown kind ${JSON.stringify(String(kind))}`);
  return entry;
}

/** The schema $id for a value of a kind, or null when its version is not one this package knows. */
export function schemaId(kind, value) {
  const entry = kindEntry(kind);
  if (entry.versionField === null || typeof value !== "object" || value === null || Array.isArray(value)) {
    return entry.latest;
  }
  const version = own(value, entry.versionField);
  if (typeof version !== "string") return entry.latest;
  return own(entry.versions, version) ?? null;
}

// Every value nested deeper than MAX_DEPTH levels (the Python package's default --max-depth), in document order,
// found with a stack (never by recursion): such a document gets json.too-deep there and is not checked further,
// as in Python. A container met again (a value shared or holding itself, which JSON.parse never makes) is
// walked again only from a deeper place, so a cycle ends at the limit.
function tooDeep(value) {
  const found = [];
  const deepest = new Map();
  const pending = [{ node: value, depth: 0, parent: null, token: "" }];
  while (pending.length > 0) {
    const place = pending.pop();
    if (place.depth > MAX_DEPTH) {
      found.push(pointerOf(place));
      continue;
    }
    const { node, depth } = place;
    if ((deepest.get(node) ?? -1) >= depth) continue;
    deepest.set(node, depth);
    const names = Array.isArray(node) ? null : Object.keys(node);
    for (let position = (names ?? node).length - 1; position >= 0; position--) {
      const token = names === null ? position : names[position];
      const child = node[token];
      // A scalar needs no walk, unless it is itself past the limit (then it is reported, as in Python).
      if ((typeof child === "object" && child !== null) || depth + 1 > MAX_DEPTH) {
        pending.push({ node: child, depth: depth + 1, parent: place, token });
      }
    }
  }
  return found;
}

function pointerOf(place) {
  const tokens = [];
  for (let at = place; at.parent !== null; at = at.parent) tokens.push(escape(String(at.token)));
  return tokens.reverse().map((token) => `/${token}`).join("");
}

// uniqueItems (the package's own keyword, scripts/compile.mjs): one error per item equal to an earlier one, i its
// index and j the first equal item's, as the Python package reports them.
function repeats(error) {
  const { i, j } = error.params;
  return { pointer: `${error.instancePath}/${i}`, code: "schema.unique-items", message: `${describe(error.data[i])} repeats item ${j}; items must be unique` };
}

function issues(error) {
  if (error.keyword === "uniqueItems") return [repeats(error)];
  const found = issue(error);
  return found === null ? [] : [found];
}

// A value as a message shows it: its type, and a short string or number (never a whole object).
function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    const shown = value.length > 60 ? `${value.slice(0, 60)}...` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  return `the ${typeof value} ${String(value)}`;
}

function message(error, code) {
  const p = error.params;
  switch (error.keyword) {
    case "required":
      return `missing required member ${JSON.stringify(p.missingProperty)}`;
    case "additionalProperties":
      return `unexpected member ${JSON.stringify(p.additionalProperty)}`;
    case "type":
      return `expected ${String(p.type).replace(",", " or ")}, found ${describe(error.data)}`;
    case "enum":
      return `expected one of ${p.allowedValues.map((v) => JSON.stringify(v)).join(", ")}; found ${describe(error.data)}`;
    case "const":
      return `expected ${JSON.stringify(p.allowedValue)}, found ${describe(error.data)}`;
    case "pattern": {
      const title = error.parentSchema && error.parentSchema.title;
      return `expected ${title ?? `a string matching ${JSON.stringify(p.pattern)}`}; found ${describe(error.data)}`;
    }
    case "not": {
      const reason = (error.schema && error.schema.description) || (error.parentSchema && error.parentSchema.description);
      return `not allowed: ${reason || "this value is not allowed here"}`;
    }
    default:
      return `${code}: ${error.message}; found ${describe(error.data)}`;
  }
}

function issue(error) {
  const keyword = error.keyword;
  if (keyword === "if" || keyword === "propertyNames") return null; // their inner errors say it
  if (error.propertyName !== undefined) {
    return { pointer: `${error.instancePath}/${escape(error.propertyName)}`, code: "schema.member-name", message: `member name ${JSON.stringify(error.propertyName)} is not valid: ${message(error, "")}` };
  }
  const placed = own(KEYWORDS, keyword);
  let code = placed ? placed.code : `schema.${keyword}`;
  let pointer = error.instancePath;
  if (keyword === "required" || keyword === "dependentRequired") {
    pointer += `/${escape(error.params.missingProperty)}`;
  } else if (keyword === "additionalProperties") {
    pointer += `/${escape(error.params.additionalProperty)}`;
  } else if (keyword === "not" && error.schema && typeof error.schema === "object" && "pattern" in error.schema) {
    code = "schema.pattern";
  } else if (keyword === "pattern" && error.params.pattern === RELATIVE_PATH_PATTERN) {
    code = "security.path-escape";
  }
  return { pointer, code, message: message(error, code) };
}

/** The schema findings on a value of a kind: [] when it is valid. */
export function validate(kind, value) {
  const entry = kindEntry(kind);
  if (typeof value === "object" && value !== null) {
    const deep = tooDeep(value);
    if (deep.length > 0) return deep.map((pointer) => ({ pointer, code: TOO_DEEP.code, severity: severity(TOO_DEEP.code), message: TOO_DEEP.message }));
  }
  const id = schemaId(kind, value);
  if (id === null) {
    const field = entry.versionField;
    const known = Object.keys(entry.versions).join(", ");
    const code = "schema.unknown-version";
    return [{ pointer: `/${escape(field)}`, code, severity: severity(code), message: `${field} ${JSON.stringify(own(value, field))} is not a version of ${kind} this package knows; known: ${known}` }];
  }
  const validator = BY_ID[id];
  if (validator(value)) return [];
  const errors = validator.errors ?? [];
  // A string that fails its pattern gets that error alone, not also the "no final line break" beside it.
  const failedPattern = new Set(errors.filter((e) => e.keyword === "pattern").map((e) => e.parentSchema));
  const seen = new Set();
  const found = [];
  for (const error of errors) {
    if (error.keyword === "not" && failedPattern.has(error.parentSchema)) continue;
    for (const each of issues(error)) {
      const key = `${each.pointer}\u0000${each.code}`;
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ pointer: each.pointer, code: each.code, severity: severity(each.code), message: each.message });
    }
  }
  return found;
}

/** A type guard for the documents of one model (one version of a kind). */
export function guard(model) {
  const id = own(GUARDS, model);
  if (id === undefined) throw new TypeError(`unknown model ${JSON.stringify(String(model))}`);
  const validator = BY_ID[id];
  return (value) => validator(value) === true;
}

export * from "./guards.js";
