// Reads [{"kind": name, "data": value}, ...] on stdin; prints [[issue, ...], ...] from the installed package.
import { validate } from "agentbeats-spec";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(JSON.stringify(cases.map(({ kind, data }) => validate(kind, data))));
