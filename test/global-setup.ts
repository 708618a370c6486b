import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CALL_LOG_ENV } from './helpers/api-calls';
import { startLocalNeo4jForRun } from './helpers/neo4j';

/** Jest starts its workers after this runs, so they inherit the variables. */
export default async function globalSetup(): Promise<void> {
  process.env[CALL_LOG_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'api-calls-'));
  await startLocalNeo4jForRun();
}
