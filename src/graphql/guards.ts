import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { RequestHandler } from 'express';
import { GraphQLError, type ValidationContext } from 'graphql';
import { nestingDepth } from './nesting';

/**
 * Deeper than any query the depth limit (GRAPHQL_MAX_DEPTH, at most 100) lets through needs, and
 * far below the few thousand levels that overflow graphql-js's parser.
 */
export const MAX_NESTING = 128;

/** A client mistake Apollo answers as it is: 400, code BAD_REQUEST (contract §5). */
export function badRequest(message: string): GraphQLError {
  // `http` is Apollo's own extension (status and headers of the answer); it never reaches the client.
  const http = { status: 400, headers: new HeaderMap() };
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http } as Record<string, unknown> });
}

/**
 * Documents nested too deep to parse safely are refused before Apollo sees them: Apollo parses
 * outside any hook that can refuse a request (an error thrown from `didResolveSource` is answered
 * as a masked 500), so this runs in front of its Express handler.
 */
export function guardNesting(apollo: RequestHandler, maxNesting = MAX_NESTING): RequestHandler {
  return (req, res, next) => {
    const query: unknown = req.method === 'GET' ? req.query.query : (req.body as { query?: unknown } | undefined)?.query;
    const found = typeof query === 'string' ? nestingDepth(query) : 0;
    if (found <= maxNesting) return apollo(req, res, next);
    const message = `Nesting limit of ${maxNesting} exceeded, found ${found}: brackets, braces and parentheses nest too deep.`;
    res.status(400).json({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
  };
}

/**
 * Subscriptions are refused as the client mistake they are: this server does not serve them, and
 * graphql-js would answer one with a 200 and an error that reads like a server fault.
 */
export const refuseSubscriptions: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation === 'subscription') {
          throw badRequest('Subscriptions are served over WebSocket at /graphql (the graphql-transport-ws protocol), not over HTTP.');
        }
      },
    };
  },
};

/**
 * graphql-armor's limits report a refusal as "Syntax Error: Query depth limit of 10 exceeded…",
 * though nothing is wrong with the syntax: report it as what it is, a limit exceeded.
 */
export const reportLimit = {
  propagateOnRejection: false,
  onReject: [
    (ctx: ValidationContext | null, err: GraphQLError) =>
      ctx?.reportError(new GraphQLError(err.message.replace(/^Syntax Error: /, ''), { nodes: err.nodes, extensions: err.extensions })),
  ],
};
