import fs from 'node:fs';
import path from 'node:path';

/**
 * Settings kept in a `.env` file in the working directory, when there is one (`npm start`, the
 * CLIs): read by Node's own parser (`process.loadEnvFile`), and never over a variable the
 * environment already sets, so `PORT=5000 npm start` still wins. The file name it read, if any.
 */
export function loadEnvFile(dir = process.cwd()): string | undefined {
  const file = path.join(dir, '.env');
  if (!fs.existsSync(file)) return undefined;
  process.loadEnvFile(file);
  return file;
}
