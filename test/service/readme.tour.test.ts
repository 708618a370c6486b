import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runScript } from '../helpers/process';
import { startTestServer, tempDbPath, type TestServer } from '../helpers/server';

/**
 * The README's "Try it" tour, run as written: every `$ curl ...` in it goes through a shell and
 * curl to a real server on demo data seeded the way the README says, and prints what the README
 * shows (a `...` stands for anything: inside a line, the rest of that stretch; alone on a line,
 * any number of lines).
 */

const ROOT = path.resolve(__dirname, '..', '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

interface Step {
  command: string;
  expected: string[];
}

/** The `$ ` commands of the sh blocks of one README section, with the output shown under each. */
function tour(section: string): Step[] {
  const start = README.indexOf(section);
  const text = README.slice(start, README.indexOf('\n## ', start));
  const steps: Step[] = [];
  for (const [, block] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = block.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].startsWith('$ ')) continue;
      let command = lines[i].slice(2);
      while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++i].trim()}`;
      const expected: string[] = [];
      while (i + 1 < lines.length && lines[i + 1] !== '' && !lines[i + 1].startsWith('$ ')) expected.push(lines[++i]);
      steps.push({ command, expected });
    }
  }
  return steps;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The expected lines as one pattern: `...` inside a line is any text, a line of `...` any lines. */
function pattern(expected: string[]): RegExp {
  const lines = expected.map((line) => (line === '...' ? '(?:[^\\n]*\\n)*?' : `${line.split('...').map(escape).join('[^\\n]*')}\\n`));
  return new RegExp(`^${lines.join('')}$`);
}

function sh(command: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', command], { env: { PATH: process.env.PATH ?? '', ...env } }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

/** The README's own settings: the quick start's ADMIN account, and the seed day of its outputs. */
const quickStartEnv = () => {
  const line = README.split('\n').find((l) => l.startsWith('npm ci && ') && /\bnpm start\b/.test(l))!;
  return Object.fromEntries([...line.matchAll(/\b([A-Z_]+)=(\S+)/g)].map(([, k, v]) => [k, v]));
};
const seedDay = () => /`SEED_TODAY=(\d{4}-\d{2}-\d{2}) npm run seed`/.exec(README)?.[1];

let s: TestServer;
beforeAll(async () => {
  const day = seedDay();
  expect(day).toBeDefined();
  const dbPath = tempDbPath();
  const seeded = await runScript('src/cli/seed.ts', [], { SQLITE_PATH: dbPath, LOG_LEVEL: 'silent', SEED_TODAY: day! });
  expect(seeded.code).toBe(0);
  // The quick start's account, its password generated (none in the environment) as a first start does.
  s = await startTestServer({ SQLITE_PATH: dbPath, ADMIN_PASSWORD: '', ...quickStartEnv() });
  expect(s.adminPassword).toMatch(/^[\w-]{20}$/);
}, 60_000);
afterAll(() => s?.close());

test('every command of "Try it" prints what the README shows', async () => {
  const steps = tour('### Try it');
  expect(steps.length).toBeGreaterThanOrEqual(7);
  const port = new URL(s.url).port;
  const env: Record<string, string> = {};
  let lastOutput = '';
  for (const { command, expected } of steps) {
    // `PASSWORD=...` stands for pasting the password the first start printed, `TOKEN=eyJ...` the
    // token the login above printed.
    const assignment = /^([A-Z_]+)=\S+$/.exec(command);
    if (assignment) {
      env[assignment[1]] = assignment[1] === 'PASSWORD' ? s.adminPassword! : JSON.parse(lastOutput).token;
      continue;
    }
    const output = (await sh(command.replaceAll('localhost:4000', `127.0.0.1:${port}`), env)).replace(/\r\n/g, '\n');
    lastOutput = output;
    const printed = output.endsWith('\n') ? output : `${output}\n`;
    expect({ command, output: printed }).toEqual({ command, output: expect.stringMatching(pattern(expected)) });
  }
}, 60_000);
