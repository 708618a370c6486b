import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** The real server process (src/main.ts run by tsx) as an operator starts it, for end-to-end tests. */

const ROOT = path.resolve(__dirname, '../..');

export interface Run {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Start `node -r tsx/cjs src/main.ts` with exactly `env` (plus PATH/HOME): nothing leaks in from
 * jest. `preload`: more modules to load first (`-r`); `cwd`: where it runs (a `.env` there is read).
 */
export function run(env: Record<string, string>, preload: string[] = [], cwd = ROOT): Run {
  const child = spawn(process.execPath, ['-r', require.resolve('tsx/cjs'), ...preload.flatMap((p) => ['-r', p]), path.join(ROOT, 'src', 'main.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, exit };
}

/** Resolves once the process logs that it listens; rejects if it exits or takes too long first. */
export async function listening(r: Run, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void r.exit.then(() => (exited = true));
  while (!r.output.stdout.includes('"msg":"listening on')) {
    if (exited) throw new Error(`process exited before listening:\n${r.output.stdout}\n${r.output.stderr}`);
    if (Date.now() > deadline) throw new Error(`process did not listen in time:\n${r.output.stdout}\n${r.output.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export /** Every output line of a running server is one JSON log record. */
function logRecords(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** Run a CLI script (`src/cli/*.ts`) to completion as its own process, with exactly `env` (plus PATH/HOME). */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  preload: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', ...preload.flatMap((p) => ['-r', p]), script, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
