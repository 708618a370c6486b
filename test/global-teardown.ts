import fs from 'node:fs';
import { buildSchema } from '../src/graphql/schema';
import { openApiDocument } from '../src/rest/openapi';
import { createSofaRouter } from '../src/rest/sofa';
import { CALL_LOG_ENV, readCalls } from './helpers/api-calls';
import { stopLocalNeo4jForRun } from './helpers/neo4j';
import { invalidBodies, undocumentedStatuses } from './helpers/openapi-coverage';

/**
 * After every test file has run (however few were selected): each status the suite saw a REST
 * operation answer must be listed for that operation in the served OpenAPI document, and each
 * success body it saw must be one the operation documents (its Content-Type listed, a JSON body
 * valid against the response's schema). A teardown that throws fails the jest run; the message
 * names each undocumented status and each body the document does not describe.
 */
export default async function globalTeardown(): Promise<void> {
  await stopLocalNeo4jForRun();
  const dir = process.env[CALL_LOG_ENV];
  if (!dir) return;
  try {
    const calls = readCalls(dir);
    if (!calls.length) return;
    const schema = buildSchema();
    const doc = (await openApiDocument(createSofaRouter(schema), schema)) as Parameters<
      typeof undocumentedStatuses
    >[0];
    const problems = [
      ...undocumentedStatuses(doc, calls).map((line) => `status: ${line}`),
      ...invalidBodies(doc, calls).map((line) => `body: ${line}`),
    ];
    if (problems.length) {
      throw new Error(
        `The OpenAPI document does not describe ${problems.length} answer(s) the suite observed:\n  ${problems.join('\n  ')}`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
