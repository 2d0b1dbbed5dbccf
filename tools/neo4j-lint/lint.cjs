// Lint Cypher with Neo4j's own parser and semantic analysis (@neo4j-cypher/language-support).
// stdin: {"schema": {labels, relationshipTypes, propertyKeys},
//         "statements": [{"name", "query", "parameters", "console": true to allow Browser commands like :params}]}
// stdout: [{"name", "diagnostics": [{"severity": 1 error | 2 warning, "message"}]}]
// Procedures and functions come from the package's own snapshot of a real Neo4j (testData.mockSchema), so a wrong
// procedure name, arity or argument type is an error, as is a parameter the statement uses but is not given.
'use strict';
const ls = require('@neo4j-cypher/language-support');

const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const mock = ls.testData.mockSchema;
const out = input.statements.map((s) => {
  const schema = { ...mock, ...input.schema, parameters: s.parameters };
  const { diagnostics } = ls.lintCypherQuery(s.query, schema, { consoleCommandsEnabled: Boolean(s.console) });
  return { name: s.name, diagnostics: diagnostics.map((d) => ({ severity: d.severity, message: d.message })) };
});
process.stdout.write(JSON.stringify(out));
