/**
 * Query parameters are read by their argument's GraphQL type (src/rest/input.ts), whatever the
 * field: a synthetic field exercises every supported type, including ones no route uses yet.
 */
import { buildSchema } from 'graphql';
import { AppError } from '../../src/errors';
import { readArguments } from '../../src/rest/input';

const schema = buildSchema(`
  enum Color { RED GREEN }
  enum ThingSort { SIZE_ASC SIZE_DESC }
  type Query { things(flag: Boolean, color: Color, colors: [Color!], text: String, limit: Int, sort: ThingSort, serviceTypes: [Color!]): Int }
`);
const args = schema.getQueryType()!.getFields().things.args;
const read = (query: Record<string, unknown>) => readArguments(args, new Set(), {}, query, undefined, false);
const problems = (query: Record<string, unknown>) => {
  try {
    read(query);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).code, fields: ((err as AppError).details ?? []).map((d) => d.field) };
  }
  throw new Error('no error');
};

test('reads each type strictly', () => {
  expect(read({ flag: 'true', color: 'RED', colors: ['GREEN', 'RED', 'GREEN'], text: ' a ', limit: '7', sort: '-size' })).toEqual({
    flag: true,
    color: 'RED',
    // Every repeat is passed on, as GraphQL would get it: a bound on the list counts what was sent.
    colors: ['GREEN', 'RED', 'GREEN'],
    text: ' a ',
    limit: 7,
    sort: 'SIZE_DESC',
  });
  expect(read({ colors: 'RED', sort: 'size' })).toEqual({ colors: ['RED'], sort: 'SIZE_ASC' });
  // A list argument is read under its REST name (serviceTypes -> serviceType), repeated.
  expect(read({ serviceType: ['RED', 'GREEN'] })).toEqual({ serviceTypes: ['RED', 'GREEN'] });
});

test.each([
  [{ flag: 'yes' }, ['flag']],
  [{ color: 'red' }, ['color']],
  [{ colors: ['RED', 'BLUE'] }, ['colors']],
  [{ sort: 'SIZE_ASC' }, ['sort']],
  [{ text: ['a', 'b'] }, ['text']],
  [{ color: 'X', flag: 'maybe' }, ['flag', 'color']],
])('%p is VALIDATION_FAILED naming %p', (query, fields) => {
  expect(problems(query)).toEqual({ code: 'VALIDATION_FAILED', fields });
});

test('limit-like integers keep their BAD_REQUEST', () => {
  expect(problems({ limit: 'x' }).code).toBe('BAD_REQUEST');
  expect(problems({ limit: ['1', '2'] }).code).toBe('BAD_REQUEST');
});
