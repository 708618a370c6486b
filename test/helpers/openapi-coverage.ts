import { openApiPath } from '../../src/rest/openapi';
import { ROUTES } from '../../src/rest/routes';
import type { ApiCall } from './api-calls';

type Doc = { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>> };

/** Paths under /api/v1 that serve documents for people and tools rather than API operations. */
const DOCUMENT_PATHS = [/^\/?$/, /^\/openapi\.json$/, /^\/docs(\/|$)/];

/** `/songs/{id}` → /^\/songs\/[^/]+\/?$/i (Express matches case-insensitively, with an optional trailing slash). */
const templateRegex = (template: string) =>
  new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i');

interface Matcher {
  method: string;
  /** The path as the document writes it (`/songs/{id}`). */
  template: string;
  regex: RegExp;
}

const literalSegments = (template: string) => template.split('/').filter((seg) => seg && !seg.startsWith('{')).length;

/**
 * The route table first, in its order, as Express matches it (src/rest/router.ts); then any
 * operation the document has beyond the table (served by another router), most literal first.
 */
const matchersByDoc = new WeakMap<Doc, Matcher[]>();

function matchers(doc: Doc): Matcher[] {
  const cached = matchersByDoc.get(doc);
  if (cached) return cached;
  const table = ROUTES.map((r) => ({ method: r.method, template: openApiPath(r.path) }));
  const known = new Set(table.map((m) => `${m.method} ${m.template}`));
  const extra = Object.entries(doc.paths)
    .flatMap(([template, item]) => Object.keys(item).map((method) => ({ method: method.toUpperCase(), template })))
    .filter((m) => !known.has(`${m.method} ${m.template}`))
    .sort((a, b) => literalSegments(b.template) - literalSegments(a.template));
  const all = [...table, ...extra].map((m) => ({ ...m, regex: templateRegex(m.template) }));
  matchersByDoc.set(doc, all);
  return all;
}

export interface Verdict {
  call: ApiCall;
  /** The operation the call reached, or what answers for the path when none does. */
  operation: string;
  documented: string[];
}

/**
 * What the document promises for one observed call: a HEAD runs the GET operation; a path with no
 * operation for the method answers 405 (204 for an OPTIONS preflight); a path with none at all
 * answers 404; an undecodable path answers 400 anywhere. These are stated once in the document's
 * `info.description`.
 */
export function verdictOf(doc: Doc, call: ApiCall): Verdict | undefined {
  if (DOCUMENT_PATHS.some((re) => re.test(call.path))) return undefined;
  const method = call.method === 'HEAD' ? 'GET' : call.method;
  const onPath = matchers(doc).filter((m) => m.regex.test(call.path));
  const hit = onPath.find((m) => m.method === method);
  if (!hit) {
    // An undecodable path is refused before routing: 400 on any path and method.
    if (!onPath.length) return { call, operation: '(unknown path)', documented: ['404', '400'] };
    return { call, operation: '(other method)', documented: method === 'OPTIONS' ? ['204', '400'] : ['405', '400'] };
  }
  const op = doc.paths[hit.template]?.[method.toLowerCase()];
  return {
    call,
    operation: op?.operationId ?? `${method} ${hit.template} (not in the document)`,
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
