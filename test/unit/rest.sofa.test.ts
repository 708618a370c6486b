import { print, type DocumentNode, type ExecutionArgs } from 'graphql';
import { createSofaRouter } from 'sofa-api';
import { buildSchemas } from '../../src/graphql/schema';
import { ROUTES } from '../../src/rest/routes';
import { BASE_PATH, sofaOf, sofaOperation } from '../../src/rest/sofa';

/**
 * The REST facade runs, for each route, the operation SOFA derives from the route's field
 * (src/rest/sofa.ts), without sending requests through SOFA's own router. This holds it to that:
 * SOFA's router, asked for every route through its public `fetch`, executes exactly the document
 * the facade runs. Nothing executes: the recording `execute` answers an empty result.
 */

const sofa = sofaOf(buildSchemas().unguarded);
const executed: DocumentNode[] = [];
const router = createSofaRouter({
  ...sofa,
  execute: ((args: ExecutionArgs) => {
    executed.push(args.document);
    return { data: null };
  }) as never,
});

// A binding's `alsoAt` route runs its main route's operation (the same field): SOFA knows the main one.
test.each(ROUTES.filter((r) => r.aliasOf === undefined).map((r) => [`${r.method} ${r.path}`, r] as const))('%s runs the operation SOFA derives', async (_name, route) => {
  executed.length = 0;
  const url = `http://sofa.internal${BASE_PATH}${route.path.replace(/:\w+/g, '1')}`;
  const hasBody = route.method === 'POST' || route.method === 'PUT';
  await router.fetch(new Request(url, { method: route.method, ...(hasBody ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) }));
  expect(executed).toHaveLength(1);
  expect(print(executed[0])).toBe(print(sofaOperation(sofa, route)));
});

