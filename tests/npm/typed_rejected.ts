// Wrong uses tsc --strict must refuse: tests/interop/test_npm.py checks that every line marked "rejected" has an
// error and no other line has one, so the types cannot pass their typed test by being unknown or any.
import { validate, type AttemptResult, type TaskIndex, type Kind, type ExecutionIssue } from "agentbeats-spec";

export const a: AttemptResult = { status: "completed", ground_truth: {} }; // rejected: the shell is incomplete
export const b: AttemptResult = {}; // rejected: retry_count alone at least
export const c: AttemptResult["status"] = "done"; // rejected: not a status
export const d: Kind = "agentcompass-attemp"; // rejected: not a kind
export const e: TaskIndex = { schema_version: "agentcompass.task.v4", task_id: "t", attempts: {} }; // rejected: a version the type does not know
export const f: ExecutionIssue = { severity: "info", phase: "run", code: "c", message: "m" }; // rejected: no such severity
export const g: AttemptResult = { retry_count: "1" }; // rejected: a count is a number
export const h = validate("abb", {}); // rejected: not a kind
export const i: AttemptResult = { retry_count: 0, error: "boom" }; // rejected: an attempt has no error member
export const j: string = validate("abb-case", {})[0].pointer.length; // rejected: a number
