/**
 * Memory soak for /graphql under a stream of distinct queries: every request
 * is a query text the server has never seen, the worst case for any per-document cache. The
 * server (scripts/soak-graphql-server.ts) runs in a child process on loopback with a capped heap;
 * its RSS and its heap after a full collection are sampled as the queries stream, and the run ends after `--queries` requests or `--seconds`, whichever is first.
 *
 *   npm run soak:graphql                                   # 6,000 queries, heap cap 160 MiB
 *   npm run soak:graphql -- --queries 20000 --new-every 9  # one request in nine a new query
 *
 * Options: --queries <n> (6000), --seconds <s> (240), --heap <MiB> (160; 0 = Node's default),
 * --concurrency <n> (8), --new-every <k> (1: every request a new query), --samples <n> (12).
 * It prints memory samples and exits 1 when the server died or answered an error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
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

interface Memory {
  rss: number;
  heapUsed: number;
}

/** The server's memory after a full garbage collection, asked over IPC; null once it is gone. */
function sampleMemory(child: ChildProcess): Promise<Memory | null> {
  if (child.exitCode !== null || child.signalCode !== null || !child.connected) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = (memory: Memory | null) => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(memory);
    };
    const onMessage = (m: { memory?: Memory }) => m.memory && done(m.memory);
    const onExit = () => done(null);
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send('sample', (err) => err && done(null));
  });
}

/**
 * Query number `i`: distinct text (an alias and a limit that vary), a realistic nested selection.
 * With --new-every k, only one request in k brings a new text; the others repeat a recent one.
 */
function queryFor(request: number): string {
  const i = NEW_EVERY > 1 && request % NEW_EVERY !== 0 ? Math.floor(request / NEW_EVERY) * NEW_EVERY : request;
  return `query Soak${i} { s${i}: songs(limit: ${1 + (i % 97)}) { id name artists services { id date serviceType } } services(limit: ${1 + (i % 13)}) { id date songs { id name } } }`;
}

function waitForReady(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start within 60 s')), 60_000);
    child.on('message', (m: { ready?: string }) => {
      if (m.ready) {
        clearTimeout(timer);
        resolve(m.ready);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code} during startup`)));
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-graphql-'));
  const nodeArgs = [
    ...(HEAP > 0 ? [`--max-old-space-size=${HEAP}`] : []),
    '--expose-gc',
    '--import',
    'tsx',
    path.join(ROOT, 'scripts/soak-graphql-server.ts'),
  ];
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      SQLITE_PATH: path.join(dir, 'soak.db'),
      JWT_SECRET: 'soak-secret-that-is-at-least-32-characters',
      LOG_LEVEL: 'error',
      // Its queries read whole relation lists, which the cost limit charges as 1000 items each:
      // the soak measures what distinct documents cost in memory, so they must run.
      GRAPHQL_MAX_COST: '1000000000000',
    },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let died: string | null = null;
  child.on('exit', (code, signal) => (died = `exit code ${code}${signal ? `, signal ${signal}` : ''}`));

  try {
    const url = await waitForReady(child);
    console.log(
      `soak: ${QUERIES} requests (${NEW_EVERY === 1 ? 'every one a new query' : `one in ${NEW_EVERY} a new query`}), ` +
        `${CONCURRENCY} at a time, at most ${SECONDS} s; server pid ${child.pid}, heap cap ${HEAP > 0 ? `${HEAP} MiB` : 'default'}`,
    );
    console.log('requests   distinct   RSS MiB   heap after GC MiB   req/s (since last sample)');
    const started = Date.now();
    const MiB = (n: number) => (n / 1024 / 1024).toFixed(0);
    const sample = async (done: number, since: number, sinceDone: number) => {
      const rate = done > sinceDone ? ((done - sinceDone) / ((Date.now() - since) / 1000)).toFixed(0) : '-';
      const distinct = NEW_EVERY > 1 ? Math.ceil(done / NEW_EVERY) : done;
      const memory = await sampleMemory(child);
      if (!memory) return;
      const { rss, heapUsed } = memory;
      console.log(`${String(done).padStart(8)}   ${String(distinct).padStart(8)}   ${MiB(rss).padStart(7)}   ${MiB(heapUsed).padStart(17)}   ${rate.padStart(5)}`);
    };
    await sample(0, started, 0);

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
          await sample(done, lastSampleAt, lastSampleDone);
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
    if (done > lastSampleDone) await sample(done, lastSampleAt, lastSampleDone);
    console.log(`\n${done} requests in ${seconds} s, ${errors} errors`);
    if (errors) {
      console.log(`first errors:\n  ${firstErrors.join('\n  ')}`);
      process.exitCode = 1;
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
