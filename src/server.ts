import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from './app';
import { ensureAdmin } from './auth/bootstrap';
import type { Config } from './config';
import { createStore } from './store';
import type { Store } from './store/types';

export interface RunningServer {
  url: string;
  store: Store;
  close(): Promise<void>;
}

/** Open the store, bootstrap the admin, and listen. Used by main.ts and by the tests. */
export async function startServer(config: Config, log: Logger, store?: Store): Promise<RunningServer> {
  const db = store ?? (await createStore(config, log));
  if (config.admin) await ensureAdmin(db, config.admin, log);
  const app = await createApp(config, db, log);
  const http = await new Promise<import('node:http').Server>((resolve, reject) => {
    const server = app.express.listen(config.port, config.host, () => resolve(server));
    server.once('error', reject);
  });
  // Behind a load balancer idle keep-alive sockets must outlive the balancer's, or requests
  // racing a close get reset.
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  const { port } = http.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    url: `http://${host}:${port}`,
    store: db,
    close: async () => {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
      });
      await app.close();
      await db.close();
    },
  };
}
