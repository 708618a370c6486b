/**
 * A real Redis for the tests: Debian's `redis-server` on a free loopback port, with its own
 * temporary directory and no persistence. Never a mock. `.ci/run` installs redis-server when it is
 * missing; elsewhere the suites that need it say why they skip (and fail with CI=true).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './process';

export interface LocalRedis {
  url: string;
  port: number;
  /** The server process, for SIGSTOP/SIGCONT (a Redis that hangs). */
  readonly pid: number;
  /** SIGTERM, and wait for it to exit. */
  stop(): Promise<void>;
  /** Start again on the same port (after stop()). */
  restart(): Promise<void>;
  /** stop(), and remove its directory. */
  close(): Promise<void>;
}

/** Why redis-server cannot run here, or null when it can. */
export function redisMissing(): string | null {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return probe.error || probe.status !== 0 ? 'redis-server is not on PATH (apt-get install redis-server)' : null;
}

/** describe, or describe.skip with the reason when redis-server is missing and CI is not set. */
export function describeWithRedis(name: string, fn: () => void): void {
  const missing = redisMissing();
  if (missing && process.env.CI !== 'true') {
    // An honest skip: this machine lacks redis-server (with CI=true its absence fails instead).
    console.warn(`SKIPPED "${name}": ${missing}`);
    describe.skip(`${name} (SKIPPED: ${missing})`, fn);
  } else {
    describe(name, fn);
  }
}

export async function startRedis(): Promise<LocalRedis> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-test-'));
  let child: ChildProcess;

  async function start() {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 20_000);
      child.stdout!.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}):\n${output}`));
      });
    });
    child.removeAllListeners('exit');
  }

  async function stop() {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid!;
    },
    stop,
    restart: start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
