// A consumer's typed use of agentbeats-spec: tests/interop/test_npm.py compiles it with tsc --strict and runs it.
import { isAttemptResult, isTaskIndex, validate, type AttemptResult, type Issue, type Kind, type Step } from "agentbeats-spec";

const answer: AttemptResult["final_answer"] = "diff --git a/x b/x";
const structured: AttemptResult["final_answer"] = { patch: "...", files: ["x"] };
const kind: Kind = "agentcompass-attempt";
const retryOnly: AttemptResult = { retry_count: 2 };
const complete: AttemptResult = {
  status: "completed",
  metrics: { accuracy: 1, passed: true },
  final_answer: null,
  trajectory: {},
  issues: [{ severity: "warning", phase: "run", code: "slow", message: "took long" }],
  artifacts: {},
  analysis_result: {},
  meta: { benchmark: {}, harness: {} },
  retry_count: 0,
};

function steps(value: unknown): Step[] {
  if (isAttemptResult(value) && "trajectory" in value && value.trajectory !== undefined && "steps" in value.trajectory) {
    return value.trajectory.steps;
  }
  return [];
}

const issues: Issue[] = validate(kind, JSON.parse('{"status": "done"}'));
const pointers: string[] = issues.map((issue) => `${issue.severity} ${issue.code} ${issue.pointer}`);
const task: unknown = { schema_version: "agentcompass.task.v3", task_id: "t1", attempts: { "1": "attempt-1" } };
if (isTaskIndex(task)) console.log(task.task_id.toUpperCase());
console.log(JSON.stringify({ answer, structured, retryOnly, complete: validate(kind, complete), steps: steps(complete), pointers }));
