// agentbeats-spec for JavaScript: validate(kind, value) with this package's codes, and type guards.
// The validators are compiled ahead of time (validators.js, Ajv standalone code): nothing compiles at run time.
import { BY_ID } from "./validators.js";
import { GUARDS, KEYWORDS, KINDS, RELATIVE_PATH_PATTERN, SEVERITIES } from "./kinds.js";

export { KINDS };

function escape(token) {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

function severity(code) {
  return SEVERITIES[code] ?? "error";
}

/** The schema $id for a value of a kind, or null when its version is not one this package knows. */
export function schemaId(kind, value) {
  const entry = KINDS[kind];
  if (entry === undefined) throw new TypeError(`unknown kind ${JSON.stringify(kind)}`);
  if (entry.versionField === null || typeof value !== "object" || value === null || Array.isArray(value)) {
    return entry.latest;
  }
  const version = value[entry.versionField];
  if (typeof version !== "string") return entry.latest;
  return entry.versions[version] ?? null;
}

// JSON equality (1 and 1.0 are one number in JavaScript already; members in any order).
function equal(left, right) {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && equal(left[key], right[key]));
}

// Every item that repeats an earlier one, as the Python package reports them (Ajv names one pair only).
function repeats(error) {
  const found = [];
  error.data.forEach((item, index) => {
    if (error.data.slice(0, index).some((earlier) => equal(earlier, item))) found.push(index);
  });
  return found.map((index) => ({ pointer: `${error.instancePath}/${index}`, code: "schema.unique-items", message: `${describe(error.data[index])} repeats an earlier item; items must be unique` }));
}

function issues(error) {
  if (error.keyword === "uniqueItems") return repeats(error);
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
  const placed = KEYWORDS[keyword];
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
  const id = schemaId(kind, value);
  if (id === null) {
    const field = KINDS[kind].versionField;
    const known = Object.keys(KINDS[kind].versions).join(", ");
    const code = "schema.unknown-version";
    return [{ pointer: `/${escape(field)}`, code, severity: severity(code), message: `${field} ${JSON.stringify(value[field])} is not a version of ${kind} this package knows; known: ${known}` }];
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
  const validator = BY_ID[GUARDS[model]];
  return (value) => validator(value) === true;
}

export * from "./guards.js";
