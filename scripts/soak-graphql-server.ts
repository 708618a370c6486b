/**
 * The server of scripts/soak-graphql.ts, in its own process: the real `startServer` with the
 * configuration from the environment, plus one IPC message for the soak. On "sample" it runs a
 * full garbage collection (the process runs with --expose-gc) and answers its memory figures, so
 * the soak sees what is really kept, not what a lazy collector has yet to free.
 */
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';

async function main() {
  const config = loadConfig();
  const server = await startServer(config, createLogger(config.logLevel));
  process.on('message', (message) => {
    if (message !== 'sample') return;
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ memory: process.memoryUsage() });
  });
  process.on('disconnect', () => void server.close().then(() => process.exit(0)));
  process.send!({ ready: server.url });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
