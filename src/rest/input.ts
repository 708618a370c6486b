import {
  coerceInputValue,
  getNamedType,
  GraphQLInt,
  isEnumType,
  type GraphQLEnumType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
} from 'graphql';
import type { z } from 'zod';
import { ruleProblems } from '../domain/validation';
import { AppError, validationFailed, type FieldProblem } from '../errors';

const MAX_INT = 2 ** 31 - 1;
const POSITIVE = /^[1-9]\d{0,9}$/;
const NATURAL = /^\d{1,10}$/;

function describe(type: GraphQLInputType): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return `an array of ${describe(inner.ofType).replace(/^an? /, '')}s`;
  const named = getNamedType(inner);
  if (isEnumType(named)) return `one of ${named.getValues().map((v) => v.name).join(', ')}`;
  switch (named.name) {
    case 'String':
      return 'a string';
    case 'Int':
      return 'an integer';
    case 'Boolean':
      return 'a boolean';
    case 'Timestamp':
      return 'epoch milliseconds, a valid ISO-8601 date-time with Z or an offset from -12:00 to +14:00, or a calendar day YYYY-MM-DD, in the years 1900 to 2200';
    default:
      return `a ${named.name}`;
  }
}

/**
 * A path segment for an argument. Int arguments are record ids: a positive integer written plainly
 * (`abc`, `1.5`, `0`, `-3`, `1e3`, or anything past 2^31-1 is a 400), because SOFA's own reading is
 * lenient (`" 7"` would become 7).
 */
function pathValue(arg: GraphQLArgument, raw: string): string | number {
  if (getNamedType(arg.type) !== GraphQLInt) return raw;
  if (!POSITIVE.test(raw) || Number(raw) > MAX_INT) {
    throw new AppError('BAD_REQUEST', `${arg.name} must be a positive integer, not '${raw}'`);
  }
  return Number(raw);
}

/**
 * Query parameters whose REST name is not the argument's: `?q=` is `search`, and a list argument is
 * a repeated parameter named in the singular (`?serviceType=SUN_AM&serviceType=WED`).
 */
export const QUERY_NAMES: Readonly<Record<string, string>> = { search: 'q', serviceTypes: 'serviceType' };
export const queryName = (arg: string) => QUERY_NAMES[arg] ?? arg;

/**
 * Sort enums (every value `FIELD_ASC` or `FIELD_DESC`) are spelled on REST as `field` and
 * `-field` (descending), the common REST convention: `?sort=-name` is NAME_DESC.
 */
const SORT_VALUE = /^([A-Z][A-Z0-9]*)_(ASC|DESC)$/;
export function restEnumSpelling(values: readonly string[]): Map<string, string> | undefined {
  if (!values.length || !values.every((v) => SORT_VALUE.test(v))) return undefined;
  return new Map(
    values.map((v) => {
      const [, field, dir] = SORT_VALUE.exec(v)!;
      return [`${dir === 'DESC' ? '-' : ''}${field.toLowerCase()}`, v];
    }),
  );
}

type OasParameter = { name: string; in: string; schema?: { $ref?: string; type?: string }; explode?: boolean };

/**
 * A query parameter of SOFA's OpenAPI document as this module reads it: its REST name, sort enums
 * in their `field`/`-field` spelling, lists as repeated parameters.
 */
export function describeQueryParameter(p: OasParameter, schemas: Record<string, unknown>): void {
  p.name = queryName(p.name);
  const ref = p.schema?.$ref?.split('/').pop();
  const spelling = ref ? restEnumSpelling((schemas[ref] as { enum?: string[] } | undefined)?.enum ?? []) : undefined;
  if (spelling) p.schema = { type: 'string', enum: [...spelling.keys()] } as OasParameter['schema'];
  if (p.schema?.type === 'array') p.explode = true;
}

/** One query parameter value read by its GraphQL type; undefined (with a problem noted) when bad. */
function scalarFromQuery(name: string, type: GraphQLInputType, raw: string, problems: FieldProblem[]): unknown {
  const named = getNamedType(type);
  if (isEnumType(named)) {
    const spelling = restEnumSpelling((named as GraphQLEnumType).getValues().map((v) => v.name));
    const value = spelling ? spelling.get(raw) : named.getValue(raw)?.name;
    if (value === undefined) {
      problems.push({ field: name, message: `must be one of ${[...(spelling?.keys() ?? named.getValues().map((v) => v.name))].join(', ')}` });
    }
    return value;
  }
  switch (named.name) {
    case 'Int':
      // limit and offset: read as strictly as path ids, and answered as before (BAD_REQUEST).
      if (!NATURAL.test(raw) || Number(raw) > MAX_INT) throw new AppError('BAD_REQUEST', `${name} must be a whole number`);
      return Number(raw);
    case 'Boolean':
      if (raw === 'true' || raw === 'false') return raw === 'true';
      problems.push({ field: name, message: 'must be true or false' });
      return undefined;
    case 'String':
      return raw;
    default:
      problems.push({ field: name, message: `cannot be given in the query string` });
      return undefined;
  }
}

/**
 * A query parameter read strictly by its argument's GraphQL type: Int (whole numbers), String,
 * Boolean (`true`/`false`), enum (its value names, or `field`/`-field` for sort enums), and a list
 * of those as a repeated parameter, every repeat passed on (as GraphQL would have it: a bound on
 * the list's length counts what was sent, as the OpenAPI document's maxItems does). Anything else,
 * or a non-list parameter given twice, is refused.
 */
function queryValue(arg: GraphQLArgument, raw: unknown, problems: FieldProblem[]): unknown {
  const name = queryName(arg.name);
  const type = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  if (isListType(type)) {
    const raws = Array.isArray(raw) ? raw : [raw];
    if (!raws.every((r) => typeof r === 'string')) {
      problems.push({ field: name, message: 'must be plain values' });
      return undefined;
    }
    const values = raws.map((r) => scalarFromQuery(name, type.ofType as GraphQLInputType, r, problems));
    return values.includes(undefined) ? undefined : values;
  }
  if (typeof raw !== 'string') {
    // Given twice: limit and offset are answered as before (BAD_REQUEST), the rest as values.
    if (getNamedType(type) === GraphQLInt) throw new AppError('BAD_REQUEST', `${name} must be given once`);
    problems.push({ field: name, message: 'must be given once' });
    return undefined;
  }
  return scalarFromQuery(name, type, raw, problems);
}

/** One JSON body field, coerced by the argument's own GraphQL input type (strict: no `123` → "123"). */
function bodyValue(arg: GraphQLArgument, value: unknown, problems: FieldProblem[]): unknown {
  if (value === null) {
    problems.push({ field: arg.name, message: 'must not be null' });
    return undefined;
  }
  // GraphQL coercion reads a lone value as a one-item list (`"A"` → ["A"]); on the JSON wire a
  // string where the contract says array is a mistake, not a shorthand.
  if (isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type) && !Array.isArray(value)) {
    problems.push({ field: arg.name, message: `must be ${describe(arg.type)}` });
    return undefined;
  }
  let ok = true;
  const coerced = coerceInputValue(value, arg.type, () => {
    ok = false;
  });
  if (!ok) problems.push({ field: arg.name, message: `must be ${describe(arg.type)}` });
  return coerced;
}

/**
 * The arguments of one REST call: path parameters, then (GET) query parameters read by their
 * GraphQL types, or (POST/PUT) the JSON body's fields. Body fields that are not arguments (such as `id`)
 * are ignored, as the contract says of `id`. `rule` is the field's value rule (its operation's, src/graphql/operations.ts), so a
 * type problem is answered together with the value problems of the other fields.
 */
export function readArguments(
  args: readonly GraphQLArgument[],
  inPath: ReadonlySet<string>,
  params: Record<string, string>,
  query: Record<string, unknown>,
  body: unknown,
  hasBody: boolean,
  rule?: z.ZodObject,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  if (hasBody && body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new AppError('BAD_REQUEST', 'The request body must be a JSON object');
  }
  const fields = (body ?? {}) as Record<string, unknown>;

  for (const arg of args) {
    if (inPath.has(arg.name)) {
      values[arg.name] = pathValue(arg, params[arg.name]);
    } else if (!hasBody) {
      const raw = query[queryName(arg.name)];
      if (raw !== undefined) values[arg.name] = queryValue(arg, raw, problems);
      else if (isNonNullType(arg.type)) problems.push({ field: queryName(arg.name), message: 'is required' });
    } else if (fields[arg.name] !== undefined) {
      values[arg.name] = bodyValue(arg, fields[arg.name], problems);
    } else if (isNonNullType(arg.type)) {
      problems.push({ field: arg.name, message: 'is required' });
    }
  }
  if (!hasBody && rule) {
    // Query parameters are checked here, under their REST names (`q`, not `search`).
    const bad = new Set(problems.map((p) => p.field));
    const typed = Object.fromEntries(Object.entries(values).filter(([k]) => !bad.has(queryName(k))));
    problems.push(...ruleProblems(rule, typed).map((p) => ({ ...p, field: queryName(p.field) })).filter((p) => !bad.has(p.field)));
  }
  if (problems.length) {
    // The resolver, which checks values, will not run: check the well-typed fields' values here.
    const bad = new Set(problems.map((p) => p.field));
    const typed = Object.fromEntries(Object.entries(values).filter(([k]) => !bad.has(k)));
    if (rule && hasBody) problems.push(...ruleProblems(rule, typed).filter((p) => !bad.has(p.field)));
    throw validationFailed(problems);
  }
  return values;
}
