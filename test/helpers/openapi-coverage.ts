import { openApiPath } from '../../src/rest/openapi';
import { ROUTES } from '../../src/rest/routes';
import type { ApiCall } from './api-calls';

type Doc = { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>> };

/** Paths under /api/v1 that serve documents for people and tools rather than API operations. */
const DOCUMENT_PATHS = [/^\/?$/, /^\/openapi\.json$/, /^\/docs(\/|$)/];

const routeRegex = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '[^/]+')}/?$`, 'i');
const ROUTE_MATCHERS = ROUTES.map((route) => ({ route, regex: routeRegex(route.path) }));

export interface Verdict {
  call: ApiCall;
  /** The operation the call reached, or what answers for the path when none does. */
  operation: string;
  documented: string[];
}

/**
 * What the document promises for one observed call. Routes are matched in the table's order, as
 * Express matches them (src/rest/router.ts): a HEAD runs the GET route; a path with no route for
 * the method answers 405 (204 for an OPTIONS preflight); a path no route has answers 404. These
 * three are stated once in the document's `info.description`, not per operation.
 */
export function verdictOf(doc: Doc, call: ApiCall): Verdict | undefined {
  if (DOCUMENT_PATHS.some((re) => re.test(call.path))) return undefined;
  const method = call.method === 'HEAD' ? 'GET' : call.method;
  const onPath = ROUTE_MATCHERS.filter((m) => m.regex.test(call.path));
  const hit = onPath.find((m) => m.route.method === method);
  if (!hit) {
    if (!onPath.length) return { call, operation: '(unknown path)', documented: ['404'] };
    return { call, operation: '(other method)', documented: method === 'OPTIONS' ? ['204'] : ['405'] };
  }
  const op = doc.paths[openApiPath(hit.route.path)]?.[method.toLowerCase()];
  return {
    call,
    operation: op?.operationId ?? `${method} ${hit.route.path} (not in the document)`,
    documented: Object.keys(op?.responses ?? {}),
  };
}

/** Calls whose status the document does not list for their operation, one line each, deduplicated. */
export function undocumentedStatuses(doc: Doc, calls: ApiCall[]): string[] {
  const lines = new Set<string>();
  for (const call of calls) {
    const v = verdictOf(doc, call);
    if (!v || v.documented.includes(String(call.status))) continue;
    const where = call.file ? ` (from ${call.file.split('/').slice(-1)[0]})` : '';
    lines.add(`${call.method} /api/v1${call.path} answered ${call.status}; ${v.operation} documents ${v.documented.join(', ') || 'nothing'}${where}`);
  }
  return [...lines];
}
