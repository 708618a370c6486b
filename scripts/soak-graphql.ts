/**
 * Memory soak for /graphql under a stream of distinct queries (issue 8, defect 2): every request
 * is a query text the server has never seen, the worst case for any per-document cache. The
 * server runs in a child process on loopback with a capped heap; its RSS is sampled as the
 * queries stream, and the run ends after `--queries` requests or `--seconds`, whichever is first.
 *
 *   npm run soak:graphql                                   # 6,000 queries, heap cap 160 MiB
 *   npm run soak:graphql -- --queries 20000 --new-every 9  # one request in nine a new query
 *
 * Options: --queries <n> (6000), --seconds <s> (240), --heap <MiB> (160; 0 = Node's default),
 * --concurrency <n> (8), --new-every <k> (1: every request a new query), --samples <n> (12).
 * It prints RSS samples and exits 1 when the server died or answered an error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    queries: { type: 'string', default: '6000' },
    seconds: { type: 'string', default: '240' },
    heap: { type: 'string', default: '160' },
    concurrency: { type: 'string', default: '8' },
    'new-every': { type: 'string', default: '1' },
    samples: { type: 'string', default: '12' },
  },
});
const QUERIES = Number(opts.queries);
const SECONDS = Number(opts.seconds);
const HEAP = Number(opts.heap);
const CONCURRENCY = Number(opts.concurrency);
const NEW_EVERY = Number(opts['new-every']);
const SAMPLE_EVERY = Math.max(1, Math.floor(QUERIES / Number(opts.samples)));

const ROOT = path.resolve(__dirname, '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Resident set of a process in MiB, from /proc (Linux) or `ps` elsewhere. */
function rssMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) / 1024;
  }
}

/**
 * Query number `i`: distinct text (an alias and a limit that vary), a realistic nested selection.
 * With --new-every k, only one request in k brings a new text; the others repeat a recent one.
 */
function queryFor(request: number): string {
  const i = NEW_EVERY > 1 && request % NEW_EVERY !== 0 ? Math.floor(request / NEW_EVERY) * NEW_EVERY : request;
  return `query Soak${i} { s${i}: songs(limit: ${1 + (i % 97)}) { id name artists services { id date serviceType } } services(limit: ${1 + (i % 13)}) { id date songs { id name } } }`;
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} during startup`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become healthy within 60 s');
}

async function main() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-graphql-'));
  const nodeArgs = [...(HEAP > 0 ? [`--max-old-space-size=${HEAP}`] : []), '--import', 'tsx', path.join(ROOT, 'src/main.ts')];
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      SQLITE_PATH: path.join(dir, 'soak.db'),
      JWT_SECRET: 'soak-secret-that-is-at-least-32-characters',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let died: string | null = null;
  child.on('exit', (code, signal) => (died = `exit code ${code}${signal ? `, signal ${signal}` : ''}`));

  try {
    await waitForHealth(url, child);
    console.log(
      `soak: ${QUERIES} requests (${NEW_EVERY === 1 ? 'every one a new query' : `one in ${NEW_EVERY} a new query`}), ` +
        `${CONCURRENCY} at a time, at most ${SECONDS} s; server pid ${child.pid}, heap cap ${HEAP > 0 ? `${HEAP} MiB` : 'default'}`,
    );
    console.log('requests   distinct   RSS MiB   req/s (since last sample)');
    const started = Date.now();
    const sample = (done: number, since: number, sinceDone: number) => {
      const rate = done > sinceDone ? ((done - sinceDone) / ((Date.now() - since) / 1000)).toFixed(0) : '-';
      const distinct = NEW_EVERY > 1 ? Math.ceil(done / NEW_EVERY) : done;
      console.log(`${String(done).padStart(8)}   ${String(distinct).padStart(8)}   ${rssMiB(child.pid!).toFixed(0).padStart(7)}   ${rate.padStart(5)}`);
    };
    sample(0, started, 0);

    let next = 0;
    let done = 0;
    let errors = 0;
    let lastSampleAt = Date.now();
    let lastSampleDone = 0;
    const firstErrors: string[] = [];
    const worker = async () => {
      while (next < QUERIES && died === null && Date.now() - started < SECONDS * 1000) {
        const query = queryFor(next++);
        try {
          const res = await fetch(`${url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query }),
          });
          const body = (await res.json()) as { errors?: unknown[] };
          if (res.status !== 200 || body.errors) {
            errors++;
            if (firstErrors.length < 3) firstErrors.push(`${res.status} ${JSON.stringify(body).slice(0, 200)}`);
          }
        } catch (err) {
          errors++;
          if (firstErrors.length < 3) firstErrors.push(String(err));
        }
        done++;
        if (done % SAMPLE_EVERY === 0 && died === null) {
          sample(done, lastSampleAt, lastSampleDone);
          lastSampleAt = Date.now();
          lastSampleDone = done;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await new Promise((r) => setTimeout(r, 100));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (died !== null) {
      console.log(`\nFAILED: the server died (${died}) after ${done} requests in ${seconds} s.`);
      const oom = /heap out of memory|Allocation failed/i.exec(stderr);
      if (oom) console.log(`  its last words: ${oom[0]}`);
      process.exitCode = 1;
      return;
    }
    if (done > lastSampleDone) sample(done, lastSampleAt, lastSampleDone);
    console.log(`\n${done} requests in ${seconds} s, ${errors} errors; final RSS ${rssMiB(child.pid!).toFixed(0)} MiB`);
    if (errors) {
      console.log(`first errors:\n  ${firstErrors.join('\n  ')}`);
      process.exitCode = 1;
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
