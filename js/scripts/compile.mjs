// Reads {"schemas": [schema, ...], "ids": [id, ...]} on stdin and prints an ES module with one compiled
// validator per id (Ajv standalone code): the package needs no schema compilation at run time.
import Ajv2020 from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, verbose: true, code: { source: true, esm: true } });
for (const schema of input.schemas) ajv.addSchema(schema);
const mapping = {};
input.ids.forEach((id, index) => { mapping[`v${index}`] = id; });
// Ajv 8's standalone ES module still loads its run-time helpers with require(): made imports here.
let code = standaloneCode(ajv, mapping).replace(
  /const (func[0-9]+) = require\("([^"]+)"\)\.default;/g,
  (_, name, path) => `import ${name}_module from "${path}.js";const ${name} = ${name}_module.default;`,
);
if (code.includes("require(")) throw new Error("the standalone code still calls require()");
code += `\nexport const BY_ID = {${input.ids.map((id, i) => `${JSON.stringify(id)}: v${i}`).join(", ")}};\n`;
process.stdout.write(code);
