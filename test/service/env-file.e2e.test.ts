import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, listening, logRecords, run } from '../helpers/process';
import { tempDbPath } from '../helpers/server';

/** Settings that persist: the service reads a `.env` in the folder it starts in, under the environment's own. */

test('a .env in the working folder is read; a variable the environment sets wins over it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'env-file-'));
  const port = await freePort();
  const db = tempDbPath();
  fs.writeFileSync(
    path.join(dir, '.env'),
    `# kept between starts\nPORT=${port}\nSERVICE_TIME_ZONE=America/Chicago\nSQLITE_PATH=${db}\nLOG_LEVEL=debug\nJWT_SECRET=${'x'.repeat(40)}\n`,
  );
  const r = run({ LOG_LEVEL: 'info' }, [], dir);
  try {
    await listening(r);
    const records = logRecords(r.output.stdout);
    expect(records.find((rec) => rec.msg === `listening on http://127.0.0.1:${port}`)).toMatchObject({ timeZone: 'America/Chicago' });
    expect(records.find((rec) => /^settings read from /.test(String(rec.msg)))).toMatchObject({ file: path.join(dir, '.env') });
    // LOG_LEVEL from the environment, not the file's debug.
    expect(records.some((rec) => rec.level === 20)).toBe(false);
    expect(fs.existsSync(db)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  } finally {
    r.child.kill('SIGTERM');
    await r.exit;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
