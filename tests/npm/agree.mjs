// Reads [{"kind": name, "data": value}, ...] on stdin; prints [{"issues": [issue, ...], "ms": time}, ...] from the
// installed package, or {"thrown": "TypeError: ..."} for a case on which validate() throws (none may).
import { validate } from "agentbeats-spec";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(JSON.stringify(cases.map(({ kind, data }) => {
  const started = performance.now();
  try {
    const issues = validate(kind, data);
    return { issues, ms: performance.now() - started };
  } catch (error) {
    return { thrown: `${error?.name}: ${error?.message}` };
  }
})));
