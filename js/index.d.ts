// agentbeats-spec for TypeScript: the document types, validate(kind, value) and a type guard per model.
export * from "./types.js";
export * from "./guards.js";
import type { Kind } from "./types.js";

/** One schema finding: a JSON Pointer (RFC 6901) into the value, a code of the Python package, a severity. */
export interface Issue {
  pointer: string;
  code: string;
  severity: "error" | "warning";
  message: string;
}

/** The schema findings on a value of a kind: [] when it is valid. It never throws on a value JSON.parse made (a value
 * nested deeper than 512 levels is a json.too-deep issue); an unknown kind is a TypeError. */
export declare function validate(kind: Kind, value: unknown): Issue[];

/** The schema $id a value of a kind is checked against, or null when its version is unknown. */
export declare function schemaId(kind: Kind, value: unknown): string | null;

/** The kind table: each kind's version field and schema $id by version. */
export declare const KINDS: Readonly<Record<Kind, { versionField: string | null; versions: Record<string, string>; latest: string }>>;
