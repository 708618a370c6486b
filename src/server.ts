import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from './app';
import { ensureAdmin } from './auth/bootstrap';
import type { Config } from './config';
import { drainHttp } from './lifecycle';
import { listenError } from './startup-errors';
import { createStore } from './store';
import type { Store } from './store/types';

export interface RunningServer {
  url: string;
  store: Store;
  /** The password generated for the ADMIN this start created (ADMIN_USERNAME without ADMIN_PASSWORD), to show once. */
  adminPassword?: string;
  /**
   * Graceful stop: /readyz turns 503 and the listener closes at once; requests in flight get up
   * to `config.shutdownTimeoutSeconds` to finish; then the store is closed.
   */
  close(): Promise<void>;
}

/** Open the store, bootstrap the admin, and listen. Used by main.ts and by the tests. */
export async function startServer(config: Config, log: Logger, store?: Store): Promise<RunningServer> {
  const db = store ?? (await createStore(config, log));
  try {
    const { generatedPassword } = config.admin ? await ensureAdmin(db, config.admin, log) : {};
    const app = await createApp(config, db, log);
    const server = http.createServer(app.express);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(listenError(err, config)));
      server.listen(config.port, config.host, () => resolve());
    });
    // Behind a load balancer idle keep-alive sockets must outlive the balancer's, or requests
    // racing a close get reset.
    // After listening: a WebSocket server on a server that failed to listen reports that failure too.
    app.attach(server);
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    const { port } = server.address() as AddressInfo;
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host}:${port}`,
      store: db,
      adminPassword: generatedPassword,
      close: () =>
        (closing ??= (async () => {
          app.lifecycle.beginDrain();
          await app.closeSubscriptions();
          const { forced } = await drainHttp(server, config.shutdownTimeoutSeconds * 1000);
          if (forced) {
            log.warn({ timeoutSeconds: config.shutdownTimeoutSeconds }, 'requests still running at the shutdown timeout were cut off');
          }
          await app.close();
          await db.close();
        })()),
    };
  } catch (err) {
    // A store we opened is ours to close; one handed in belongs to the caller.
    if (!store) await db.close().catch(() => undefined);
    throw err;
  }
}
