import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CALL_LOG_ENV } from './helpers/api-calls';

/** Jest starts its workers after this runs, so they inherit the variable. */
export default function globalSetup(): void {
  process.env[CALL_LOG_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'api-calls-'));
}
