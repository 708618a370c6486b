/**
 * `npm run test:schemathesis`: Schemathesis, a suite nobody here wrote, against the OpenAPI
 * document the service serves, on a real server over a seeded SQLite file.
 *
 * Two runs, each bounded (`--max-examples`) with a fixed seed and every phase (examples, coverage,
 * fuzzing, stateful) and every check: one as an ADMIN, one with no token. The service runs with
 * RATE_LIMIT=off (the runs send thousands of requests). scripts/schemathesis/hooks.py keeps the
 * ADMIN run from deleting, demoting or re-passwording the user whose token it holds: the rest of
 * the run would then test nothing but 401s.
 *
 * Schemathesis comes from PyPI, pinned (SCHEMATHESIS_VERSION), into a virtualenv of its own
 * (.tools/schemathesis, git-ignored), made on first use with `python3 -m venv` and pip.
 * SCHEMATHESIS_MAX_EXAMPLES (default 30), SCHEMATHESIS_MAX_TIME (seconds per run, default 180) and
 * SCHEMATHESIS_SEED (default 20261128) change the bound. With SCHEMATHESIS_LOG_DIR set, each run's
 * own report goes to a file there (admin.log, anonymous.log) and this prints one line a run; CI sets
 * it, so that a CI log reads as jest's and Schemathesis's pytest-style summary is not taken for it.
 *
 * Exit code: 0 when both runs report no failure, else 1.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, tempDbPath } from '../test/helpers/server';

export const SCHEMATHESIS_VERSION = '4.32.5';
const ROOT = path.resolve(__dirname, '..');
const VENV = path.join(ROOT, '.tools', 'schemathesis');
const ST = path.join(VENV, 'bin', 'st');

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(command, args, { stdio: 'inherit', env, cwd: ROOT });
}

/**
 * A child while this process keeps serving: the server under test runs in it. With `logFile`, its
 * output goes there instead of to this terminal.
 */
function runAsync(command: string, args: string[], env: NodeJS.ProcessEnv, logFile?: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const out = logFile ? fs.openSync(logFile, 'w') : 'inherit';
    const child = spawn(command, args, { stdio: ['ignore', out, out], env, cwd: ROOT });
    const done = () => {
      if (typeof out === 'number') fs.closeSync(out);
    };
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('exit', (code) => {
      done();
      resolve(code);
    });
  });
}

/** The pinned Schemathesis in its own virtualenv, installed when missing. */
function ensureSchemathesis(): void {
  const version = fs.existsSync(ST) ? spawnSync(ST, ['--version'], { encoding: 'utf8' }).stdout : '';
  if (version.includes(SCHEMATHESIS_VERSION)) return;
  console.log(`Installing Schemathesis ${SCHEMATHESIS_VERSION} into ${path.relative(ROOT, VENV)}`);
  if (run('python3', ['-m', 'venv', VENV]).status !== 0) throw new Error('python3 -m venv failed (Debian: apt-get install python3-venv)');
  const pip = run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`]);
  if (pip.status !== 0) throw new Error(`pip install schemathesis==${SCHEMATHESIS_VERSION} failed`);
}

async function main(): Promise<number> {
  ensureSchemathesis();
  // The demo data (npm run seed), so that reads and links find records.
  const db = tempDbPath();
  const seeded = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/seed.ts'], {
    cwd: ROOT,
    env: { ...process.env, STORE: 'sqlite', SQLITE_PATH: db },
    encoding: 'utf8',
  });
  if (seeded.status !== 0) throw new Error(`npm run seed failed: ${seeded.stderr}`);
  // Webhook URLs are pointed at 127.0.0.1 by the hooks; nothing is sent during the run.
  const server = await startTestServer({ SQLITE_PATH: db, RATE_LIMIT: 'off', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_DELIVERY: 'off' });
  try {
    const token = await server.adminToken();
    const admin = (await server.api('GET', '/users/me', { token })).body as { id: number };
    const schema = `${server.url}/api/v1/openapi.json`;
    const common = [
      '--no-color',
      'run',
      schema,
      '--checks',
      'all',
      '--phases',
      'examples,coverage,fuzzing,stateful',
      '--max-examples',
      process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '30',
      '--seed',
      process.env.SCHEMATHESIS_SEED ?? '20261128',
      '--request-timeout',
      '10',
      // Each run alike: no failures replayed from an earlier run's example database.
      '--generation-database',
      'none',
      // A bound on the whole run, whatever the examples: CI stays within its time.
      '--max-time',
      process.env.SCHEMATHESIS_MAX_TIME ?? '180',
    ];
    const env = {
      ...process.env,
      SCHEMATHESIS_HOOKS: 'hooks',
      PYTHONPATH: path.join(ROOT, 'scripts', 'schemathesis'),
      // The hooks keep the run off this user.
      OWN_USER_ID: String(admin.id),
      // The songs a setlist case is pointed at (the hooks say why).
      SONG_IDS: (await server.store.listSongs({}, {})).items.map((x) => x.id).join(','),
    };
    const logDir = process.env.SCHEMATHESIS_LOG_DIR;
    if (logDir) fs.mkdirSync(logDir, { recursive: true });
    const runs: [what: string, file: string, args: string[]][] = [
      ['as ADMIN', 'admin.log', [...common, '--header', `Authorization: Bearer ${token}`]],
      ['with no token', 'anonymous.log', common],
    ];
    const results: [string, number | null, string | undefined][] = [];
    for (const [what, file, args] of runs) {
      const logFile = logDir ? path.join(logDir, file) : undefined;
      console.log(`\nSchemathesis ${SCHEMATHESIS_VERSION} ${what} against ${schema}${logFile ? ` (report in ${logFile})` : ''}`);
      results.push([what, await runAsync(ST, args, env, logFile), logFile]);
    }
    for (const [what, status, logFile] of results) {
      console.log(`schemathesis ${what}: ${status === 0 ? 'no failures' : `FAILED (exit ${status})${logFile ? `, see ${logFile}` : ''}`}`);
    }
    return results.every(([, status]) => status === 0) ? 0 : 1;
  } finally {
    await server.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
