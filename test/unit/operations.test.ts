import type { MutationResolvers, QueryResolvers } from '../../src/generated/graphql';
import { COST_TABLE } from '../../src/graphql/cost-table';
import {
  GRAPHQL_ONLY,
  MUTATION_OPERATIONS,
  QUERY_OPERATIONS,
  ROOT_OPERATIONS,
  type MutationOperation,
  type Operation,
  type OperationTable,
} from '../../src/graphql/operations';
import { QUERY_ACCESS } from '../../src/graphql/permissions';
import { buildSchema } from '../../src/graphql/schema';
import { AUDITED } from '../../src/observability/audit';
import { GRAPHQL_ONLY_FIELDS, ROUTES } from '../../src/rest/routes';

/**
 * The operation table (src/graphql/operations.ts) is the one statement of each root field's
 * access, audit, cost weight, REST route, summary and rule; the other tables are its views.
 */

// A root field the schema gained (an `overuse` report, say) but the table has not: it must not
// compile, whichever table it belongs to. `npm run typecheck` holds these lines to that.
type WithNewQuery = QueryResolvers & { overuse?: unknown };
type WithNewMutation = MutationResolvers & { retireSong?: unknown };
// @ts-expect-error a Query field without an entry does not compile
export const missingQuery: OperationTable<WithNewQuery, Operation> = QUERY_OPERATIONS;
// @ts-expect-error a Mutation field without an entry does not compile
export const missingMutation: OperationTable<WithNewMutation, MutationOperation> = MUTATION_OPERATIONS;
// @ts-expect-error an entry for a field the schema does not have does not compile either
export const extraQuery: OperationTable<QueryResolvers, Operation> = { ...QUERY_OPERATIONS, sogns: QUERY_OPERATIONS.songs };

test('the table holds exactly the root fields of the schema', () => {
  const schema = buildSchema();
  const fields = [
    ...Object.keys(schema.getQueryType()!.getFields()).map((f) => `Query.${f}`),
    ...Object.keys(schema.getMutationType()!.getFields()).map((f) => `Mutation.${f}`),
  ];
  expect(ROOT_OPERATIONS.map((op) => op.field).sort()).toEqual(fields.sort());
});

test('the views say what the table says', () => {
  for (const op of ROOT_OPERATIONS) {
    const route = ROUTES.find((r) => r.field === op.field && r.aliasOf === undefined);
    expect([op.field, route?.method, route?.path]).toEqual(
      op.rest === GRAPHQL_ONLY ? [op.field, undefined, undefined] : [op.field, op.rest.method, op.rest.path],
    );
    const also = ROUTES.filter((r) => r.field === op.field && r.aliasOf !== undefined).map((r) => [r.method, r.path, r.aliasOf, r.without]);
    expect([op.field, also]).toEqual([op.field, op.rest !== GRAPHQL_ONLY && op.rest.alsoAt ? [[op.rest.method, op.rest.alsoAt.path, op.rest.path, op.rest.alsoAt.without]] : []]);
    expect([op.field, GRAPHQL_ONLY_FIELDS.includes(op.field)]).toEqual([op.field, op.rest === GRAPHQL_ONLY]);
    expect([op.field, COST_TABLE.weights[op.field]]).toEqual([op.field, op.weight]);
  }
  expect(QUERY_ACCESS.users).toBe('admin');
  expect(AUDITED).toEqual(Object.fromEntries(Object.entries(MUTATION_OPERATIONS).map(([k, v]) => [k, v.audit])));
});

test('of two routes of one method that can match the same URL, the more specific is tried first', () => {
  // The URL both match: each segment the literal of whichever route has one there.
  const overlap = (a: string[], b: string[]) =>
    a.length === b.length && a.every((seg, i) => seg === b[i] || seg.startsWith(':') || b[i].startsWith(':'));
  const matches = (route: string[], url: string[]) => route.length === url.length && route.every((seg, i) => seg.startsWith(':') || seg === url[i]);
  let pairs = 0;
  for (const a of ROUTES) {
    for (const b of ROUTES) {
      const as = a.path.split('/');
      const bs = b.path.split('/');
      if (a === b || a.method !== b.method || !overlap(as, bs)) continue;
      pairs++;
      const url = as.map((seg, i) => (seg.startsWith(':') ? (bs[i].startsWith(':') ? 'x1' : bs[i]) : seg));
      const first = ROUTES.find((r) => r.method === a.method && matches(r.path.split('/'), url))!;
      // The route with a literal where the two first differ in kind.
      const i = as.findIndex((seg, k) => seg.startsWith(':') !== bs[k].startsWith(':'));
      expect([url.join('/'), first.path]).toEqual([url.join('/'), as[i].startsWith(':') ? b.path : a.path]);
    }
  }
  // /users/me and /users/:id; /songs/notSungSince/:date and /songs/:songId/{usage,sungWith}.
  expect(pairs).toBeGreaterThanOrEqual(6);
});
