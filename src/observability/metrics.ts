import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics. One registry per app (not prom-client's global one) so that
 * several apps in one process, as in the tests, never collide on metric names.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly graphqlOperations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations on /graphql by operation name, type and outcome (success or error)',
    labelNames: ['operation', 'type', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly storeDuration = new Histogram({
    name: 'store_call_duration_seconds',
    help: 'Store calls by operation and outcome (ok or error)',
    labelNames: ['operation', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [this.registry],
  });

  readonly loginFailures = new Counter({
    name: 'login_failures_total',
    help: 'Failed login attempts (wrong username or password)',
    registers: [this.registry],
  });

  readonly loginLockouts = new Counter({
    name: 'login_lockouts_total',
    help: 'Times a username and address pair reached the failure limit and was locked out',
    registers: [this.registry],
  });

  readonly loginRefused = new Counter({
    name: 'login_refused_total',
    help: 'Login attempts refused with 429 because their pair was locked out',
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery tries, by outcome: delivered (2xx), failed (any other answer, none, or a refused target)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookFailedDeliveries = new Counter({
    name: 'webhook_deliveries_failed_total',
    help: 'Webhook deliveries given up after every try of the schedule failed',
    registers: [this.registry],
  });

  readonly webhookEndpointsDisabled = new Counter({
    name: 'webhook_endpoints_disabled_total',
    help: 'Webhook endpoints the service disabled because every delivery failed for three days',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The label sets of answered requests, made once each: few (methods Node accepts, route
   * patterns, statuses), so a request only looks its set up.
   */
  private readonly requestLabels = new Map<string, { method: string; route: string; status: string }>();

  /** Count one answered request and its time from request to the end of the answer. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${status} ${method} ${route}`;
    let labels = this.requestLabels.get(key);
    if (!labels) this.requestLabels.set(key, (labels = { method, route, status: String(status) }));
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /**
   * GET /metrics in the text exposition format. With a token configured, only
   * `Authorization: Bearer <token>` gets it (compared in constant time).
   */
  handler(token: string | undefined) {
    const expected = token ? crypto.createHash('sha256').update(token).digest() : undefined;
    return async (req: Request, res: Response) => {
      if (expected) {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
        const given = crypto.createHash('sha256').update(match?.[1] ?? '').digest();
        if (!match || !crypto.timingSafeEqual(given, expected)) {
          res.status(401).set('WWW-Authenticate', 'Bearer').json({
            error: { code: 'UNAUTHENTICATED', message: 'The metrics need Authorization: Bearer <METRICS_TOKEN>' },
          });
          return;
        }
      }
      res.set('Content-Type', this.registry.contentType).send(await this.registry.metrics());
    };
  }
}
