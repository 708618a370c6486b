import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/process';
import { tempDbPath } from '../helpers/server';

/**
 * The README's start command under a supervisor: a SIGTERM to the process it started (npm, with
 * the service below it) must stop the service, not orphan it. Linux only (reads /proc).
 */

const ROOT = path.resolve(__dirname, '..', '..');

/** The quick start's service command: the environment it sets and the command after it. */
function documentedStart(): { env: Record<string, string>; command: string[] } {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const quickStart = readme.slice(readme.indexOf('## Quick start'));
  const line = quickStart.split('\n').find((l) => /\bnpm start\b/.test(l) && l.startsWith('npm ci && '));
  if (!line) throw new Error("README's quick start has no `npm ci && ... npm start` line");
  const words = line.slice('npm ci && '.length).split('#')[0].trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  return { env, command: words };
}

/** A process's state letter and parent from /proc (undefined once it is gone and reaped). */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Every process below `pid`, found by walking the parent links of all processes. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat) parents.set(Number(entry), stat.ppid);
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

/** Still running: present and not a zombie (an exited process its parent has not reaped yet). */
const alive = (pid: number) => {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
};

/** This machine's IPv4 addresses other than loopback. */
const externalAddresses = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);

const portOpen = (port: number, host = '127.0.0.1') =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const linux = process.platform === 'linux' ? test : test.skip;

linux('SIGTERM to the documented start command stops the service and leaves no process', async () => {
  const { env, command } = documentedStart();
  expect(command).toEqual(['npm', 'start']);
  const port = await freePort();
  const child = spawn(command[0], command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), SQLITE_PATH: tempDbPath(), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that cleanup after a failure can reach whatever it left running;
    // the test itself signals the one process, as a supervisor does.
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let below: number[] = [];
  try {
    // `npm start` builds first (prestart), then serves.
    await until(
      async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200,
      150_000,
      `/healthz on port ${port}:\n${output}`,
    );
    below = descendants(child.pid!);
    expect(below.length).toBeGreaterThan(0);

    // A first start as the README has it: loopback only, the time zone named, the ADMIN's
    // generated password shown once on the terminal and never in the log.
    expect(output).toContain(`"msg":"listening on http://127.0.0.1:${port}"`);
    for (const address of externalAddresses()) expect([address, await portOpen(port, address)]).toEqual([address, false]);
    expect(output).toContain('"msg":"SERVICE_TIME_ZONE is not set: service dates are read and reported in UTC');
    const shown = /Created the ADMIN user 'admin' with a generated password, shown only this once:\n\n {4}(\S+)\n/.exec(output);
    expect(shown).not.toBeNull();
    const logged = output.split('\n').filter((l) => l.startsWith('{'));
    expect(logged.some((l) => l.includes(shown![1]))).toBe(false);
    const login = await fetch(`http://127.0.0.1:${port}/api/v1/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: shown![1] }),
    });
    expect(login.status).toBe(200);

    process.kill(child.pid!, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([exit, new Promise<'still running'>((r) => (timer = setTimeout(() => r('still running'), 20_000)))]);
    clearTimeout(timer);
    // Give what it started the drain's time to go too, then look.
    await until(async () => !(await portOpen(port)) && below.every((pid) => !alive(pid)), 15_000, 'the service to stop').catch(
      () => undefined,
    );
    expect(await portOpen(port)).toBe(false);
    expect(below.filter(alive)).toEqual([]);
    // npm passes on the service's own exit: 0 after a clean drain.
    expect(ended).toEqual({ code: 0, signal: null });
    // The service itself drained and closed its store.
    expect(output).toContain('"msg":"shutting down"');
    expect(output).toContain('"msg":"stopped: store closed"');
  } finally {
    for (const pid of [child.pid!, ...below]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}, 200_000);
