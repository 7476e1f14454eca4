// Reads {"schemas": [schema, ...], "instances": [{"schema": id, "data": value}, ...]} on stdin and prints
// {"compiled": [id, ...], "failures": {id: message}, "verdicts": [{"valid": bool, "errors": [...]}, ...]}.
// Ajv2020 in strict mode (union types allowed, as the README states) with ajv-formats.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
for (const schema of input.schemas) ajv.addSchema(schema);

const compiled = [];
const failures = {};
for (const schema of input.schemas) {
  try {
    ajv.getSchema(schema.$id);
    compiled.push(schema.$id);
  } catch (error) {
    failures[schema.$id] = String(error.message);
  }
}
const verdicts = input.instances.map(({ schema, data }) => {
  const validate = ajv.getSchema(schema);
  const valid = validate(data);
  return { valid, errors: (validate.errors || []).map((e) => ({ path: e.instancePath, keyword: e.keyword, params: e.params })) };
});
process.stdout.write(JSON.stringify({ compiled, failures, verdicts }));
