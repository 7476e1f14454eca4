// An editor's JSON checking, offline: vscode-json-languageservice (the engine of VS Code's JSON support) is given
// the schemas of a SchemaStore catalog as VS Code is given json.schemas (each url resolved against the catalog's
// own place, each fileMatch as written), loads them from disk only, and validates each file named.
// Usage: node editor.mjs CATALOG FILE...; prints [{"file": FILE, "schema": the $id of the schema the editor
// chose or null, "diagnostics": [{line, column, message}]}]
// with 1-based lines and columns, as agentbeats-spec reports them.
import { readFileSync } from "node:fs";
import { pathToFileURL, fileURLToPath } from "node:url";
import { getLanguageService } from "vscode-json-languageservice";
import { TextDocument } from "vscode-languageserver-textdocument";

const [catalogPath, ...files] = process.argv.slice(2);
const catalogUrl = pathToFileURL(catalogPath).href;
const catalog = JSON.parse(readFileSync(catalogPath, "utf8"));

const service = getLanguageService({
  schemaRequestService: async (uri) => {
    if (!uri.startsWith("file:")) throw new Error(`offline: not fetching ${uri}`);
    return readFileSync(fileURLToPath(uri), "utf8");
  },
});
service.configure({
  validate: true,
  allowComments: false,
  schemas: catalog.schemas
    .filter((entry) => entry.fileMatch)
    .map((entry) => ({ uri: new URL(entry.url, catalogUrl).href, fileMatch: entry.fileMatch })),
});

const out = [];
for (const file of files) {
  const document = TextDocument.create(pathToFileURL(file).href, "json", 1, readFileSync(file, "utf8"));
  const parsed = service.parseJSONDocument(document);
  const matching = await service.getMatchingSchemas(document, parsed);
  const root = matching.find((match) => match.node === parsed.root && match.schema.$id);
  const diagnostics = await service.doValidation(document, parsed, {
    schemaValidation: "error",
    schemaRequest: "error",
  });
  out.push({
    file,
    schema: root ? root.schema.$id : null,
    diagnostics: diagnostics.map((d) => ({
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      message: d.message,
    })),
  });
}
process.stdout.write(JSON.stringify(out));
