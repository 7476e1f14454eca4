// Reads {"schemas": [schema, ...], "ids": [id, ...]} on stdin and prints an ES module with one compiled
// validator per id (Ajv standalone code): the package needs no schema compilation at run time.
import Ajv2020, { _, str } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import repeatedItems from "../unique.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));

// ownProperties: a member is present only as the value's own property (never one of Object.prototype's, such as
// "constructor" or "toString"), and only own members are iterated.
const ajv = new Ajv2020({
  strict: true, allowUnionTypes: true, allErrors: true, verbose: true, ownProperties: true,
  code: { source: true, esm: true },
});

// Ajv's uniqueItems compares every pair of items (quadratic), recursively (a RangeError on deep items), and names
// one pair. This one has the same name, schema, params ({i, j}) and message, reports every item equal to an
// earlier one (i, and j the first equal item), and finds them by hashing a canonical form (unique.js): linear.
repeatedItems.code = _`require("./unique.js").default`;
ajv.removeKeyword("uniqueItems");
ajv.addKeyword({
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt) {
    const { gen, data, schema } = cxt;
    if (!schema) return;
    const repeated = gen.scopeValue("func", { ref: repeatedItems, code: repeatedItems.code });
    const found = gen.const("repeated", _`${repeated}(${data})`);
    const i = gen.let("i");
    const j = gen.let("j");
    cxt.setParams({ i, j });
    gen.forOf("pair", found, (pair) => {
      gen.assign(i, _`${pair}[0]`);
      gen.assign(j, _`${pair}[1]`);
      cxt.error();
    });
    cxt.ok(_`${found}.length === 0`);
  },
});

for (const schema of input.schemas) ajv.addSchema(schema);
const mapping = {};
input.ids.forEach((id, index) => { mapping[`v${index}`] = id; });
// Ajv 8's standalone ES module still loads its run-time helpers with require(): made imports here (a module of
// this package is imported as it is; Ajv's CommonJS helpers by their default export).
let code = standaloneCode(ajv, mapping).replace(
  /const (func[0-9]+) = require\("([^"]+)"\)\.default;/g,
  (_, name, path) => path.startsWith("./")
    ? `import ${name} from "${path}";`
    : `import ${name}_module from "${path}.js";const ${name} = ${name}_module.default;`,
);
if (code.includes("require(")) throw new Error("the standalone code still calls require()");
// A $ref's errors are added with vErrors.concat(...), a copy of every error so far for each item that fails: an
// array of 20,000 bad items took a second, and four times as long for twice as many. Appended in place instead.
code = code.replace(/vErrors\.concat\((validate[0-9]+\.errors)\)/g, (_, errors) => `appendErrors(vErrors, ${errors})`);
if (code.includes(".concat(")) throw new Error("the standalone code still copies its errors with concat()");
code += "\nfunction appendErrors(errors, more) {\n  for (const error of more) errors.push(error);\n  return errors;\n}\n";
code += `\nexport const BY_ID = Object.assign(Object.create(null), {${input.ids.map((id, i) => `${JSON.stringify(id)}: v${i}`).join(", ")}});\n`;
process.stdout.write(code);
