import {
  buildSchema,
  getOperationAST,
  getVariableValues,
  isEnumType,
  parse,
  validate,
  type GraphQLSchema,
} from 'graphql';
import { formatCost, fragmentsOf, operationCost } from '../../src/graphql/cost';
import { COST_TABLE, type CostTable, type FieldCoordinate } from '../../src/graphql/cost-table';
import { loadTypeDefs } from '../../src/graphql/schema';
import { SETLIST_MAX_SONGS } from '../../src/domain/setlist';

/**
 * The arithmetic of the cost rule (src/graphql/cost.ts), on the real schema: each field is one
 * value, a list multiplies its selection by its size (limit/first/last, literal or variable, else
 * the table's size, the connection's page, or the assumed 1000), analytics add their weight once.
 */

const schema = buildSchema(loadTypeDefs().join('\n'));

function costOf(query: string, variables: Record<string, unknown> = {}, table: CostTable = COST_TABLE, s: GraphQLSchema = schema): number {
  const document = parse(query);
  const errors = validate(s, document);
  if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
  const operation = getOperationAST(document)!;
  const { coerced, errors: variableErrors } = getVariableValues(s, operation.variableDefinitions ?? [], variables);
  if (variableErrors) throw new Error(variableErrors.map((e) => e.message).join('; '));
  return operationCost(s, fragmentsOf(document.definitions), operation, coerced, table);
}

describe('values', () => {
  test('every field is one value; a list of scalars is one value', () => {
    expect(costOf('{ song(id: 1) { id name artists } }')).toBe(1 + 3);
    expect(costOf('{ song(id: 1) { __typename } }')).toBe(2);
  });

  test('a list multiplies its selection by its limit', () => {
    expect(costOf('{ services(limit: 10) { id date } }')).toBe(1 + 10 * 2);
    expect(costOf('{ services(limit: 20) { songs(limit: 3) { name } } }')).toBe(1 + 20 * (1 + 3 * 1));
  });

  test('the attack of four nested lists of 1000 costs about 10^10 (the setlists count at most 100)', () => {
    const attack = '{ services(limit:1000){ id songs(limit:1000){ id services(limit:1000){ id songs(limit:1000){ id } } } } }';
    const songs = 1 + 100 * 1;
    const services = 1 + 1000 * (1 + songs);
    const songs2 = 1 + 100 * (1 + services);
    expect(costOf(attack)).toBe(1 + 1000 * (1 + songs2));
    expect(costOf(attack)).toBe(10_200_202_001);
  });

  test('a list returned whole counts as 1000 items', () => {
    expect(costOf('{ songs { id } }')).toBe(1 + 1000);
    expect(costOf('{ song(id: 1) { services { id } } }')).toBe(1 + 1 + 1000);
  });

  test('a setlist counts as the most songs a service holds (100), with or without a limit', () => {
    expect(SETLIST_MAX_SONGS).toBe(100);
    expect(costOf('{ service(id: 1) { setlist { position song { id } } } }')).toBe(1 + 1 + 100 * (1 + 2));
    expect(costOf('{ service(id: 1) { songs { id } } }')).toBe(1 + 1 + 100);
    expect(costOf('{ service(id: 1) { songs(limit: 500) { id } } }')).toBe(1 + 1 + 100);
    expect(costOf('{ service(id: 1) { songs(limit: 20) { id } } }')).toBe(1 + 1 + 20);
    expect(costOf('mutation { setServiceSongs(serviceId: 1, songIds: [1]) { id } }')).toBe(1 + 100);
    expect(costOf('mutation { addSongToService(serviceId: 1, songId: 1) { id } }')).toBe(1 + 100);
    // What a page of services with their setlists costs: 50 services of up to 100 songs each.
    expect(costOf('{ services(limit: 50) { id date serviceType songs { id name artists } } }')).toBe(1 + 50 * (3 + 1 + 100 * 3));
  });

  test('a limit outside 1..1000 counts as the nearest bound (the resolver refuses it before reading)', () => {
    expect(costOf('{ songs(limit: 5000) { id } }')).toBe(1 + 1000);
    expect(costOf('{ songs(limit: 0) { id } }')).toBe(1 + 1);
    expect(costOf('{ songs(limit: -7) { id } }')).toBe(1 + 1);
  });
});

describe('variables', () => {
  const byVariable = 'query Q($n: Int) { services(limit: $n) { id songs(limit: $n) { id } } }';
  const literal = (n: number) => `{ services(limit: ${n}) { id songs(limit: ${n}) { id } } }`;

  test.each([1, 7, 1000])('limit $n: a variable costs what the literal costs (n = %d)', (n) => {
    expect(costOf(byVariable, { n })).toBe(costOf(literal(n)));
  });

  test('an absent or null variable is an absent limit', () => {
    expect(costOf(byVariable, {})).toBe(costOf('{ services { id songs { id } } }'));
    expect(costOf(byVariable, { n: null })).toBe(costOf('{ services { id songs { id } } }'));
  });

  test("a variable's default counts", () => {
    expect(costOf('query Q($n: Int = 4) { songs(limit: $n) { id } }')).toBe(1 + 4);
  });

  test('connections: first from a variable, and its page is the size of edges', () => {
    const q = 'query Q($n: Int) { songsConnection(first: $n) { totalCount edges { cursor node { id name } } } }';
    expect(costOf(q, { n: 1000 })).toBe(1 + 1 + 1 + 1000 * (1 + 1 + 2));
    expect(costOf(q, { n: 1000 })).toBe(costOf('{ songsConnection(first: 1000) { totalCount edges { cursor node { id name } } } }'));
  });

  test('@skip and @include follow their variables', () => {
    const q = 'query Q($big: Boolean!) { songs(limit: 1) { id } all: songs @include(if: $big) { id } }';
    expect(costOf(q, { big: false })).toBe(2);
    expect(costOf(q, { big: true })).toBe(2 + 1001);
  });
});

describe('defaults', () => {
  test("a connection without first has the resolver's default page, 20", () => {
    expect(costOf('{ songsConnection { edges { node { id } } } }')).toBe(1 + 1 + 20 * (1 + 1));
    expect(costOf('{ servicesConnection { edges { node { id } } pageInfo { hasNextPage } } }')).toBe(1 + 1 + 20 * 2 + 1 + 1);
  });

  test('a nested list under a connection has its own size, not the page', () => {
    expect(costOf('{ songsConnection(first: 2) { edges { node { services(limit: 3) { id } } } } }')).toBe(1 + 1 + 2 * (1 + (1 + 3)));
  });

  test('byServiceType holds one entry per service type', () => {
    const types = schema.getType('ServiceType');
    expect(isEnumType(types) && types.getValues().length).toBe(COST_TABLE.sizes['SongUsage.byServiceType']);
    expect(costOf('{ songUsage(limit: 2) { byServiceType { timesSung } } }')).toBe(10000 + 1 + 2 * (1 + 3 * 1));
  });

  test('songsSungWith without limit: its default of 20', () => {
    expect(costOf('{ songsSungWith(songId: 1) { together } }')).toBe(5000 + 1 + 20);
    expect(costOf('{ songsSungWith(songId: 1, limit: 1000) { together } }')).toBe(5000 + 1 + 1000);
  });
});

describe('analytics weights', () => {
  test('a root analytic adds its weight once', () => {
    expect(costOf('{ songUsage(limit: 1) { timesSung } }')).toBe(10000 + 1 + 1);
    expect(costOf('{ a: songUsage(limit: 1) { timesSung } b: songUsage(limit: 1) { timesSung } }')).toBe(2 * 10002);
  });

  test('Song.usage is batched: its weight is not multiplied by the songs above it', () => {
    expect(costOf('{ songs(limit: 1000) { usage { timesSung } } }')).toBe(1 + 1000 * (1 + 1) + 5000);
    expect(costOf('{ songs(limit: 1) { usage { timesSung } } }')).toBe(1 + 1 * (1 + 1) + 5000);
  });
});

describe('fragments and aliases', () => {
  test('aliases count separately', () => {
    expect(costOf('{ a: songs(limit: 10) { id } b: songs(limit: 10) { id } }')).toBe(2 * 11);
    expect(costOf('{ songs(limit: 10) { id a: id b: id } }')).toBe(1 + 10 * 3);
  });

  test('the same field twice is one value (graphql merges it)', () => {
    expect(costOf('{ songs(limit: 10) { id id name } songs(limit: 10) { name } }')).toBe(1 + 10 * 2);
  });

  test('named and inline fragments count as if written out', () => {
    const written = costOf('{ songs(limit: 10) { id name services(limit: 5) { id date } } }');
    expect(costOf('fragment S on Song { id name services(limit: 5) { ...V } } fragment V on Service { id date } { songs(limit: 10) { ...S } }')).toBe(written);
    expect(costOf('{ songs(limit: 10) { ... on Song { id } ... { name services(limit: 5) { id ... on Service { date } } } } }')).toBe(written);
    expect(costOf('fragment S on Song { id name } { songs(limit: 10) { ...S ...S services(limit: 5) { id date } } }')).toBe(written);
  });

  test('a fragment under a list is multiplied by it, wherever it is spread', () => {
    const q = 'fragment F on Service { id songs(limit: 10) { id } } { services(limit: 100) { ...F } service(id: 1) { ...F } }';
    expect(costOf(q)).toBe(1 + 100 * (1 + 11) + (1 + 1 + 11));
  });

  test('a fragment cycle is infinitely costly (validation refuses it first; the count still ends)', () => {
    const document = parse('fragment A on Song { services(limit: 1) { songs(limit: 1) { ...A } } } { songs(limit: 1) { ...A } }');
    const operation = getOperationAST(document)!;
    expect(operationCost(schema, fragmentsOf(document.definitions), operation, {}, COST_TABLE)).toBe(Infinity);
  });
});

describe('derived from the schema', () => {
  const toy = buildSchema(`
    type Query { things(limit: Int): [Thing!]! thing: Thing page(first: Int): Page! }
    type Thing { id: Int! tags: [String!]! parts: [Part!]! }
    type Part { id: Int! }
    type Page { nodes: [Thing!]! count: Int! }
  `);
  const empty: CostTable = { weights: {}, sizes: {}, bounds: {}, assumedListSize: 50, maxListSize: 100 };

  test('a new list field is counted by its limit, or the assumed size, with no table entry', () => {
    expect(costOf('{ things(limit: 4) { id tags parts { id } } }', {}, empty, toy)).toBe(1 + 4 * (1 + 1 + (1 + 50)));
    expect(costOf('{ thing { parts { id } } }', {}, empty, toy)).toBe(1 + 1 + 50);
    expect(costOf('{ things(limit: 500) { id } }', {}, empty, toy)).toBe(1 + 100);
  });

  test("a new connection's nodes take its first", () => {
    expect(costOf('{ page(first: 3) { count nodes { id } } }', {}, empty, toy)).toBe(1 + 1 + 1 + 3);
  });
});

describe('the numbers docs/API.md gives', () => {
  test('the worked example', () => {
    const setlists = 'query Setlists($n: Int = 100) { services(limit: $n) { id date songs(limit: 10) { name } } }';
    expect(costOf(setlists)).toBe(1301);
    expect(costOf(setlists, { n: 1000 })).toBe(13_001);
    expect(costOf('{ services { id songs { id } } }')).toBe(102_001);
    expect(costOf('query($n: Int) { services(limit: $n) { id songs(limit: $n) { id } } }', { n: 1000 })).toBe(102_001);
    expect(costOf('{ services(limit: 50) { id date serviceType songs { id name artists } } }')).toBe(15_201);
  });

  test('what the default limit (50,000) lets through', () => {
    expect(costOf('{ services(limit: 1000) { id date serviceType songs(limit: 10) { id name artists } } }')).toBe(34_001);
    const usage = 'song { id name artists } timesSung firstSung lastSung byServiceType { serviceType timesSung lastSung } asOpener asCloser';
    expect(costOf(`{ songUsage { ${usage} } }`)).toBe(29_001);
    // The Insights page's heaviest query (public/insights/assets/js/api.js, newSongs).
    expect(costOf('{ newSongs { song { id name artists } timesSung firstSung lastSung } }')).toBe(17_001);
  });
});

describe('the table', () => {
  test('names only fields of the schema (also checked when compiling)', () => {
    for (const key of [...Object.keys(COST_TABLE.weights), ...Object.keys(COST_TABLE.sizes)]) {
      const [type, field] = key.split('.');
      expect((schema.getType(type) as { getFields?: () => Record<string, unknown> }).getFields?.()[field]).toBeDefined();
    }
    // @ts-expect-error: not a field of the schema
    const typo: FieldCoordinate = 'Query.songUsages';
    expect(typo).toBeDefined();
  });

  test('the costs named in a refusal', () => {
    expect(formatCost(1_002_002_002_001)).toBe('1002002002001');
    expect(formatCost(1e30)).toBe('1.00e+30');
    expect(formatCost(Infinity)).toBe('an unbounded cost');
  });
});
