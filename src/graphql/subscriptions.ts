import type http from 'node:http';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { getOperationAST, GraphQLError, parse, specifiedRules, validate, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { Credentials } from '../auth/credentials';
import { toAppError } from '../http/errors';
import { BASE_POINTS, rateLimited, type RequestRateLimiter } from '../http/rate-limit';
import { createContext, type AppDependencies } from './context';
import { reportLimit } from './guards';
import { nestingDepth } from './nesting';
import { MAX_NESTING } from './guards';
import { GRAPHQL_PATH } from './router';

export interface SubscriptionOptions {
  maxDepth: number;
  maxAliases: number;
  /** Charges each connection and each subscription (docs/API.md, Rate limits); none when limits are off. */
  rateLimiter?: RequestRateLimiter;
  /** The most subscriptions one client (a user, or an address without a token) holds at once. */
  maxPerClient?: number;
}

export const MAX_SUBSCRIPTIONS_PER_CLIENT = 20;

interface Client {
  key: string;
  credentials: Credentials;
  address: string;
  active: Set<string>;
}

/** An error a subscriber is sent: the contract's code and message, as on /graphql over HTTP. */
const refusal = (message: string, code: string, extra: Record<string, unknown> = {}) =>
  new GraphQLError(message, { extensions: { code, ...extra } });

/**
 * GraphQL subscriptions over WebSocket at /graphql, by the graphql-transport-ws protocol
 * (`graphql-ws`'s server on `ws`): the guarded schema, so the same access rules as queries; the
 * bearer token in `connection_init`'s payload (`{"authorization": "Bearer <token>"}`) as on HTTP;
 * each connection and each subscription charged to the client's request budget; at most
 * `maxPerClient` subscriptions per client at once; the same depth and alias limits. Only
 * subscriptions are served here: queries and mutations go over HTTP.
 */
export function attachSubscriptions(server: http.Server, schema: GraphQLSchema, deps: AppDependencies, opts: SubscriptionOptions) {
  const maxPerClient = opts.maxPerClient ?? MAX_SUBSCRIPTIONS_PER_CLIENT;
  const perClient = new Map<string, number>();
  const clients = new WeakMap<object, Client>();
  const held = (key: string, delta: number) => {
    const n = (perClient.get(key) ?? 0) + delta;
    if (n <= 0) perClient.delete(key);
    else perClient.set(key, n);
  };
  const release = (client: Client, id: string) => {
    if (client.active.delete(id)) held(client.key, -1);
  };
  const rules = [...specifiedRules, maxDepthRule({ n: opts.maxDepth, ...reportLimit }), maxAliasesRule({ n: opts.maxAliases, ...reportLimit })];

  const wss = new WebSocketServer({ server, path: GRAPHQL_PATH, maxPayload: 1024 * 1024 });
  const disposable = useServer<Record<string, unknown> | undefined, { client: Client }>(
    {
      schema,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const header = params.authorization ?? params.Authorization;
        const credentials = new Credentials(typeof header === 'string' ? header : undefined, deps.tokens);
        const address = ctx.extra.request.socket.remoteAddress ?? 'unknown';
        const key = opts.rateLimiter ? opts.rateLimiter.keyOf(credentials, address) : `addr:${address}`;
        if (opts.rateLimiter && !(await opts.rateLimiter.charge(key, BASE_POINTS)).allowed) return false;
        clients.set(ctx, { key, credentials, address, active: new Set() });
        return true;
      },
      onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        const client = clients.get(ctx)!;
        if (nestingDepth(payload.query) > MAX_NESTING) return [refusal(`Nesting limit of ${MAX_NESTING} exceeded`, 'BAD_REQUEST')];
        let document;
        try {
          document = parse(payload.query);
        } catch (err) {
          return [refusal((err as Error).message, 'BAD_REQUEST')];
        }
        const problems = validate(schema, document, rules);
        if (problems.length) return problems.map((p) => refusal(p.message, 'BAD_REQUEST'));
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return [refusal('No operation to run: name one with operationName', 'BAD_REQUEST')];
        if (operation.operation !== 'subscription') {
          return [refusal('Only subscriptions are served over WebSocket: send queries and mutations over HTTP', 'BAD_REQUEST')];
        }
        if (opts.rateLimiter) {
          const budget = await opts.rateLimiter.charge(client.key, BASE_POINTS);
          if (!budget.allowed) {
            const error = rateLimited(budget);
            return [refusal(error.message, error.code, { retryAfter: error.retryAfter })];
          }
        }
        if ((perClient.get(client.key) ?? 0) >= maxPerClient) {
          return [refusal(`At most ${maxPerClient} subscriptions at once per client: complete one first`, 'RATE_LIMITED')];
        }
        client.active.add(id);
        held(client.key, 1);
        const contextValue = createContext(deps, { credentials: client.credentials, clientAddress: client.address });
        return { schema, document, operationName: payload.operationName, variableValues: payload.variables ?? undefined, contextValue };
      },
      onNext: (_ctx, _id, _payload, _args, result) => {
        if (!result.errors?.length) return;
        // Errors in the contract's shape, as on HTTP: codes kept, anything unexpected masked.
        return {
          ...result,
          errors: result.errors.map((e) => {
            const app = toAppError(e, deps.log);
            return { message: app.message, path: e.path, extensions: { ...app.extensions } };
          }),
        };
      },
      onComplete: (ctx, id) => {
        const client = clients.get(ctx);
        if (client) release(client, id);
      },
      onClose: (ctx) => {
        const client = clients.get(ctx);
        if (client) for (const id of [...client.active]) release(client, id);
      },
    },
    wss,
  );

  let closing: Promise<void> | undefined;
  return {
    /** Subscriptions held now, for tests and metrics. */
    held: () => [...perClient.values()].reduce((a, b) => a + b, 0),
    close() {
      closing ??= (async () => {
        for (const socket of wss.clients) socket.close(1001, 'Going away');
        await disposable.dispose();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })();
      return closing;
    },
  };
}
