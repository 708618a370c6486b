import {
  coerceInputValue,
  getNamedType,
  GraphQLInt,
  isEnumType,
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
      return 'epoch milliseconds or an ISO-8601 date-time with Z or an offset, in the years 1900 to 2200';
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
 * The query parameter an argument is read from: its own name, or for a list its singular
 * (`serviceTypes` is given as repeated `serviceType=...`).
 */
export const queryName = (arg: GraphQLArgument): string =>
  isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type) ? arg.name.replace(/s$/, '') : arg.name;

const badQuery = (name: string, message: string) => new AppError('BAD_REQUEST', `${name} ${message}`);

/** One query-string value of a scalar or enum type, read strictly (`limit=1e3`, `sort=name` are 400s). */
function queryScalar(name: string, type: GraphQLInputType, raw: unknown): unknown {
  const named = getNamedType(type);
  if (typeof raw !== 'string') throw badQuery(name, 'must be given once');
  if (isEnumType(named)) {
    if (!named.getValue(raw)) throw badQuery(name, `must be ${describe(type)}, not '${raw}'`);
    return raw;
  }
  switch (named.name) {
    case 'Int':
      if (!NATURAL.test(raw) || Number(raw) > MAX_INT) throw badQuery(name, 'must be a whole number');
      return Number(raw);
    case 'Boolean':
      if (raw !== 'true' && raw !== 'false') throw badQuery(name, "must be 'true' or 'false'");
      return raw === 'true';
    default:
      return raw;
  }
}

/** A query parameter by the argument's GraphQL type; a list is the parameter repeated. */
function queryValue(arg: GraphQLArgument, raw: unknown): unknown {
  const name = queryName(arg);
  const type = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  if (!isListType(type)) return queryScalar(name, type, raw);
  const items = Array.isArray(raw) ? raw : [raw];
  return [...new Set(items.map((item) => queryScalar(name, type.ofType, item)))];
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
 * are ignored, as the contract says of `id`. `rule` is the field's value rule (rulesByField), so a
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
      const raw = query[queryName(arg)];
      if (raw !== undefined) values[arg.name] = queryValue(arg, raw);
      else if (isNonNullType(arg.type)) throw badQuery(queryName(arg), 'is required');
    } else if (fields[arg.name] !== undefined) {
      values[arg.name] = bodyValue(arg, fields[arg.name], problems);
    } else if (isNonNullType(arg.type)) {
      problems.push({ field: arg.name, message: 'is required' });
    }
  }
  if (problems.length) {
    // The resolver, which checks values, will not run: check the well-typed fields' values here.
    const bad = new Set(problems.map((p) => p.field));
    const typed = Object.fromEntries(Object.entries(values).filter(([k]) => !bad.has(k)));
    if (rule) problems.push(...ruleProblems(rule, typed).filter((p) => !bad.has(p.field)));
    throw validationFailed(problems);
  }
  return values;
}
