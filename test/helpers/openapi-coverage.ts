import Ajv, { type ValidateFunction } from 'ajv';
import { openApiPath } from '../../src/rest/openapi';
import { ROUTES } from '../../src/rest/routes';
import type { ApiCall } from './api-calls';

type Operation = { operationId?: string; responses?: Record<string, unknown> };
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
};

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
  /** The operation's responses in the document, when the call reached one. */
  responses?: Record<string, unknown>;
}

/**
 * What the document promises for one observed call: a HEAD runs the GET operation; a path with no
 * operation for the method answers 405 (204 for an OPTIONS preflight); a path with none at all
 * answers 404; an undecodable path answers 400 anywhere, and a client over its rate limit 429.
 * These are stated once in the document's `info.description`.
 */
export function verdictOf(doc: Doc, call: ApiCall): Verdict | undefined {
  if (DOCUMENT_PATHS.some((re) => re.test(call.path))) return undefined;
  const method = call.method === 'HEAD' ? 'GET' : call.method;
  const onPath = matchers(doc).filter((m) => m.regex.test(call.path));
  // As the router decides: the most specific path matching the URL, with its own methods only
  // (`PUT /users/me` is a method /users/me lacks, not `PUT /users/{id}`).
  const hit = onPath.find((m) => m.template === onPath[0].template && m.method === method);
  if (!hit) {
    // An undecodable path is refused before routing: 400 on any path and method.
    if (!onPath.length) return { call, operation: '(unknown path)', documented: ['404', '400', '429'] };
    return { call, operation: '(other method)', documented: method === 'OPTIONS' ? ['204', '400', '429'] : ['405', '400', '429'] };
  }
  const op = doc.paths[hit.template]?.[method.toLowerCase()];
  return {
    call,
    operation: op?.operationId ?? `${method} ${hit.template} (not in the document)`,
    documented: Object.keys(op?.responses ?? {}),
    responses: op?.responses,
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

/**
 * A JSON Schema validator for the document's schemas (OpenAPI 3.0's dialect: draft-04-like, with
 * `nullable`, which Ajv reads as OpenAPI defines it). OpenAPI's annotation keywords, and the
 * `components` each compiled schema carries so that its `#/components/schemas/...` references
 * resolve, are declared as keywords that check nothing; any other unknown keyword is an error.
 */
function validatorFactory(doc: Doc): (key: string, schema: object) => ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  ajv.addVocabulary(['example', 'xml', 'externalDocs', 'components']);
  // OpenAPI's numeric formats: GraphQL's Int is 32 bits; Timestamp is epoch ms, a safe integer.
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  const compiled = new Map<string, ValidateFunction>();
  return (key, schema) => {
    let v = compiled.get(key);
    if (!v) compiled.set(key, (v = ajv.compile({ ...schema, components: { schemas: doc.components?.schemas ?? {} } })));
    return v;
  };
}

const validators = new WeakMap<Doc, ReturnType<typeof validatorFactory>>();

const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/**
 * Success answers whose body the document does not describe: a Content-Type the operation's
 * response does not list, or a JSON body its schema refuses (the errors Ajv finds, by where in
 * the answer's shape). One line per operation, status and fault, naming the first call that
 * showed it.
 */
export function invalidBodies(doc: Doc, calls: ApiCall[]): string[] {
  let validator = validators.get(doc);
  if (!validator) validators.set(doc, (validator = validatorFactory(doc)));
  const lines = new Map<string, string>();
  for (const call of calls) {
    if (call.status < 200 || call.status > 299 || call.body === undefined) continue;
    const v = verdictOf(doc, call);
    const response = v?.responses?.[String(call.status)] as { content?: Record<string, { schema?: object }> } | undefined;
    if (!v || !response) continue; // a document path, or a status undocumentedStatuses reports
    const mediaType = (call.contentType ?? '').split(';')[0].trim().toLowerCase();
    const where = `${call.method} /api/v1${call.path} answered ${call.status}${call.file ? ` (from ${call.file.split('/').slice(-1)[0]})` : ''}`;
    const documented = response.content?.[mediaType];
    let fault: string | undefined;
    if (!documented) {
      fault = `${mediaType || 'no Content-Type'}, but ${v.operation} documents ${Object.keys(response.content ?? {}).join(', ') || 'no body'}`;
    } else if (isJson(mediaType) && documented.schema) {
      const validate = validator(`${v.operation} ${call.status} ${mediaType}`, documented.schema);
      let body: unknown;
      try {
        body = JSON.parse(call.body);
      } catch {
        fault = 'a body that is not JSON';
      }
      if (!fault && !validate(body)) {
        // By place in the shape (`/*/lastSung`), not by index, so one fault is one line.
        const errors = (validate.errors ?? []).map((e) => `${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '(root)'} ${e.message}`);
        fault = `a body the ${v.operation} ${call.status} schema refuses: ${[...new Set(errors)].slice(0, 5).join('; ')}`;
      }
    }
    if (!fault) continue;
    const key = `${v.operation} ${call.status} ${fault}`;
    if (!lines.has(key)) lines.set(key, `${where} with ${fault}`);
  }
  return [...lines.values()];
}
