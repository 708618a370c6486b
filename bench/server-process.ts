import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ReadyMessage } from './shared';

export interface ServerProcess {
  child: ChildProcess;
  ready: ReadyMessage;
  stop(): Promise<number | null>;
}

/**
 * bench/server.ts in a child process, so that the load generator does not share the server's event
 * loop, with NODE_ENV=production and `env` on top of this process's environment.
 */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = fork(path.join(__dirname, 'server.ts'), [], {
    execArgv: ['--require', require.resolve('tsx/cjs')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<ReadyMessage>((resolve, reject) => {
    // A Neo4j store (BENCH_STORE=neo4j) starts a JVM first: minutes on a loaded 2-core machine.
    const limitS = env.BENCH_STORE === 'neo4j' ? 600 : 60;
    const timer = setTimeout(() => reject(new Error(`the bench server did not start within ${limitS} s`)), limitS * 1000);
    child.on('message', (msg: ReadyMessage) => {
      if (msg?.type === 'ready') {
        clearTimeout(timer);
        resolve(msg);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the bench server exited with code ${code} before it was ready`));
    });
  });
  return {
    child,
    ready,
    async stop() {
      if (child.exitCode === null && child.connected) child.send('shutdown');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
