// The peer of issue 24: Ajv in Node checking a tree with our schemas, walking it itself.
//
//     node benchmarks/ajv_walk.mjs CATALOG TREE
//
// CATALOG (written by benchmarks/side_by_side.py from checking/_kinds.py) holds every schema of ours and, per kind,
// its file globs, its run-root file name and its latest schema id. The walk lists every folder once, reads every
// *.json file, JSON.parse-s it and validates it with Ajv2020 (strict, union types allowed, ajv-formats, as
// tests/node/check.mjs) compiled from our schemas, the kind told by the path as our catalog says (the first kind
// whose globs match the path's last components; a run-root name at a folder holding run_info.json or details/).
// Ajv checks no duplicate members, no positions, no rules and no layout. It prints its counts on stdout.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

// ajv is installed for the tests in tests/node (make test): resolved from there.
const require = createRequire(fileURLToPath(new URL("../tests/node/package.json", import.meta.url)));
const Ajv2020 = require("ajv/dist/2020.js").default;
const addFormats = require("ajv-formats").default;

const [catalogFile, tree] = process.argv.slice(2);
const catalog = JSON.parse(readFileSync(catalogFile, "utf8"));
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
addFormats(ajv);
for (const schema of catalog.schemas) ajv.addSchema(schema);

function globPart(glob) {
  let source = "";
  for (const character of glob) {
    if (character === "*") source += ".*";
    else if (character === "?") source += ".";
    else source += character.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "s");
}

const patterns = []; // [components, validate], in the catalog's order
const runRoot = new Map(); // run-root file name -> validate
for (const kind of catalog.kinds) {
  const validate = () => (kind.compiled ??= ajv.getSchema(kind.schema));
  for (const glob of kind.globs) patterns.push([glob.split("/").map(globPart), validate]);
  if (kind.run_root_file && !runRoot.has(kind.run_root_file)) runRoot.set(kind.run_root_file, validate);
}

function kindOf(parts, folder, name, rootChecked) {
  for (const [components, validate] of patterns) {
    if (components.length > parts.length) continue;
    const tail = parts.slice(parts.length - components.length);
    if (components.every((pattern, index) => pattern.test(tail[index]))) return validate();
  }
  const atRoot = runRoot.get(name);
  if (atRoot && rootChecked()) return atRoot();
  return null;
}

let files = 0;
let valid = 0;
let invalid = 0;
let unknown = 0;
let unreadable = 0;
function walk(folder, parts) {
  let isRoot;
  const rootChecked = () =>
    (isRoot ??= existsSync(join(folder, "run_info.json")) || existsSync(join(folder, "details")));
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      walk(path, [...parts, entry.name]);
    } else if (entry.isFile() && entry.name.endsWith(".json")) {
      files += 1;
      let data;
      try {
        data = JSON.parse(readFileSync(path, "utf8"));
      } catch {
        unreadable += 1;
        continue;
      }
      const validate = kindOf([...parts, entry.name], folder, entry.name, rootChecked);
      if (validate === null) unknown += 1;
      else if (validate(data)) valid += 1;
      else invalid += 1;
    }
  }
}
walk(tree, tree.split("/").filter(Boolean));
process.stdout.write(JSON.stringify({ files, valid, invalid, unknown, unreadable }) + "\n");
