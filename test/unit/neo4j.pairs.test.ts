/**
 * The song pair deltas of the Neo4j store (src/store/neo4j/pairs.ts): what one write does to the
 * maintained "sung with" counts. Their application on a real server is checked against the
 * setlists after random writes in test/neo4j/neo4j.usage.test.ts.
 */
import { pairDeltas } from '../../src/store/neo4j/pairs';

const state = (songIds: number[], serviceType = 'SUN_AM', date = 0) => ({ songIds, serviceType, date });
const row = (songId: number, otherId: number, d: Partial<Record<'sunAm' | 'sunPm' | 'wed', number>>) => ({
  songId,
  otherId,
  sunAm: 0,
  sunPm: 0,
  wed: 0,
  ...d,
});

describe('pairDeltas', () => {
  it('a song linked into a setlist pairs with each song there, once per pair (lower id first), in the type of the service', () => {
    expect(pairDeltas({ transitions: [{ serviceId: 1, before: state([1, 2], 'WED'), after: state([1, 2, 3], 'WED') }] })).toEqual([
      row(1, 3, { wed: 1 }),
      row(2, 3, { wed: 1 }),
    ]);
    // Whatever the setlist order: the pair is keyed by its lower id.
    expect(pairDeltas({ transitions: [{ serviceId: 1, before: state([9], 'WED'), after: state([9, 4], 'WED') }] })).toEqual([row(4, 9, { wed: 1 })]);
  });

  it('a move inside a setlist, or a date change, writes nothing', () => {
    expect(pairDeltas({ transitions: [{ serviceId: 1, before: state([1, 2, 3]), after: state([3, 1, 2]) }] })).toEqual([]);
    expect(pairDeltas({ transitions: [{ serviceId: 1, before: state([1, 2], 'WED', 0), after: state([1, 2], 'WED', 9) }] })).toEqual([]);
  });

  it('a type change moves every pair of the service from the old type to the new one', () => {
    expect(pairDeltas({ transitions: [{ serviceId: 1, before: state([1, 2], 'SUN_AM'), after: state([1, 2], 'SUN_PM') }] })).toEqual([
      row(1, 2, { sunAm: -1, sunPm: 1 }),
    ]);
  });

  it('a deleted service counts its pairs out; a created one counts them in', () => {
    expect(pairDeltas({ transitions: [{ serviceId: 1, before: state([2, 1]), after: null }] })).toEqual([
      row(1, 2, { sunAm: -1 }),
    ]);
    expect(pairDeltas({ transitions: [{ serviceId: 1, before: null, after: state([5]) }] })).toEqual([]);
  });

  it("a deleted song's pairs are left out (they went with its node); the others' pairs stand", () => {
    const transitions = [
      { serviceId: 1, before: state([1, 2, 3]), after: state([2, 3]) },
      { serviceId: 2, before: state([1, 4], 'WED'), after: state([4], 'WED') },
    ];
    expect(pairDeltas({ transitions, deletedSongs: [1] })).toEqual([]);
  });

  it('sums the transitions of one write, per pair', () => {
    const transitions = [
      { serviceId: 1, before: null, after: state([1, 2]) },
      { serviceId: 2, before: null, after: state([2, 1]) },
      { serviceId: 3, before: state([1, 2], 'WED'), after: null },
    ];
    expect(pairDeltas({ transitions })).toEqual([row(1, 2, { sunAm: 2, wed: -1 })]);
  });
});
