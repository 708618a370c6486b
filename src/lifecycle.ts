import type { Server } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * The app's half of a graceful shutdown. Once draining, /readyz answers 503 so a load balancer
 * stops sending traffic, and every answer closes its connection so keep-alive clients reconnect
 * elsewhere; requests already in progress run to completion.
 */
export class Lifecycle {
  private stopping = false;

  get draining(): boolean {
    return this.stopping;
  }

  beginDrain(): void {
    this.stopping = true;
  }

  readonly gate: RequestHandler = (req, res, next) => {
    if (!this.stopping) return next();
    res.setHeader('Connection', 'close');
    if (req.path === '/readyz') {
      res.status(503).json({ status: 'shutting-down' });
      return;
    }
    next();
  };
}

/**
 * Stop accepting connections and wait for the open ones to finish, at most `timeoutMs`; then cut
 * what is left. Resolves with whether anything had to be cut.
 */
export async function drainHttp(http: Server, timeoutMs: number): Promise<{ forced: boolean }> {
  let forced = false;
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  // Connections that finish their last request stay open for keep-alive: close them as they idle.
  const sweep = setInterval(() => http.closeIdleConnections(), 100);
  const deadline = setTimeout(() => {
    forced = true;
    http.closeAllConnections();
  }, timeoutMs);
  http.closeIdleConnections();
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
  return { forced };
}
