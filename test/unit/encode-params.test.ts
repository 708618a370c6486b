/**
 * encodeParams (src/store/neo4j/values.ts) is the one place the Neo4j store turns JS numbers into
 * Cypher INTEGERs and checks every statement's parameters against their declaration: a value of
 * the wrong type, a name missing or misspelt, or a number that is not a whole safe integer is
 * refused before anything is sent, naming where in the parameters it is. Pure: no server.
 */
import { isInt } from 'neo4j-driver';
import { PARAMS } from '../../src/store/neo4j/statements';
import { encodeParams } from '../../src/store/neo4j/values';

const pair = { songId: 1, otherId: 2, sunAm: 1, sunPm: 0, wed: -1 };

describe('encodeParams', () => {
  test('makes every declared integer a Cypher INTEGER, in rows and lists too', () => {
    const encoded = encodeParams('movePairs', PARAMS.movePairs, { rows: [pair, { ...pair, otherId: 3 }] }) as { rows: Record<string, unknown>[] };
    expect(encoded.rows.flatMap((r) => Object.values(r)).every((v) => isInt(v))).toBe(true);
    expect(encoded.rows.map((r) => String(r.otherId))).toEqual(['2', '3']);
    const locked = encodeParams('lockSongs', PARAMS.lockSongs, { songIds: [3, 5] }) as { songIds: unknown[] };
    expect(locked.songIds.map((v) => [isInt(v), String(v)])).toEqual([[true, '3'], [true, '5']]);
  });

  test('refuses a misspelt, missing or extra name, saying where', () => {
    expect(() => encodeParams('movePairs', PARAMS.movePairs, { rows: [pair, { ...pair, wed: undefined, wednesday: 1 }] })).toThrow(
      'movePairs.rows[1] takes {otherId, songId, sunAm, sunPm, wed} but was given {otherId, songId, sunAm, sunPm, wed, wednesday}',
    );
    const { wed: _wed, ...short } = pair;
    expect(() => encodeParams('movePairs', PARAMS.movePairs, { rows: [{ ...short, wedd: 1 }] })).toThrow(
      'movePairs.rows[0] takes {otherId, songId, sunAm, sunPm, wed} but was given {otherId, songId, sunAm, sunPm, wedd}',
    );
    expect(() => encodeParams('movePairs', PARAMS.movePairs, { rows: [short] })).toThrow('movePairs.rows[0] takes');
    expect(() => encodeParams('lockSongs', PARAMS.lockSongs, {})).toThrow('lockSongs takes {songIds} but was given {}');
  });

  test('refuses a value of another type, and a number that is no safe integer', () => {
    expect(() => encodeParams('movePairs', PARAMS.movePairs, { rows: [{ ...pair, sunAm: '1' }] })).toThrow(
      'movePairs.rows[0].sunAm must be INTEGER, got string',
    );
    expect(() => encodeParams('movePairs', PARAMS.movePairs, { rows: [{ ...pair, sunAm: 1.5 }] })).toThrow('1.5 is not a safe integer');
    expect(() => encodeParams('movePairs', PARAMS.movePairs, { rows: [{ ...pair, songId: 2 ** 53 }] })).toThrow('is not a safe integer');
    expect(() => encodeParams('movePairs', PARAMS.movePairs, { rows: 'all' })).toThrow('movePairs.rows must be a list of rows');
    expect(() => encodeParams('lockSongs', PARAMS.lockSongs, { songIds: [1, null] })).toThrow('lockSongs.songIds must be LIST<INTEGER>, got a list');
  });
});
