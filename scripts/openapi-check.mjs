// Checks an OpenAPI document with two tools that know nothing of this project: the OpenAPI 3.0
// JSON Schema (@seriousme/openapi-schema-validator) and Redocly's "recommended" lint rules.
// Both are ESM-only, which jest's CommonJS runtime cannot import; test/e2e/openapi.test.ts runs this
// file as a child process. Usage: node scripts/openapi-check.mjs <document.json>
// Prints one JSON line: { version, valid, schemaErrors, problems: [{ ruleId, severity, message, location }] }.
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const file = process.argv[2];
const source = await readFile(file, 'utf8');

const validator = new Validator();
const result = await validator.validate(JSON.parse(source));

const config = await createConfig({
  extends: ['recommended'],
  rules: {
    // The contract fixes `/services/withSong/{songId}` (GET) and `/services/{serviceId}/songs`
    // (PUT). Both templates match the path `/services/withSong/songs`, but they share no method,
    // so no request is ambiguous; the literal `withSong` is matched first.
    'no-ambiguous-paths': 'off',
  },
});
const problems = await lintFromString({ source, absoluteRef: file, config });

console.log(
  JSON.stringify({
    version: validator.version,
    valid: result.valid,
    schemaErrors: result.valid ? [] : result.errors,
    problems: problems.map((p) => ({
      ruleId: p.ruleId,
      severity: p.severity,
      message: p.message,
      location: p.location?.[0]?.pointer,
    })),
  }),
);
