import fc from 'fast-check';
import { ccliNumberOf, prefixedCcliNumber, SongMatcher, titleKey } from '../../src/domain/song-match';

describe('titleKey: the title as the matching rule compares it', () => {
  test.each([
    ['Goodness Of God', 'Goodness of God'],
    ['Build My Life (Live)', 'Build My Life'],
    ['Way Maker - Acoustic', 'Way Maker'],
    ['Way Maker – Live at Home', 'Way Maker'],
    ['10,000 Reasons (Bless the Lord)', '10000 Reasons'],
    ['10 000 Reasons', '10,000 Reasons'],
    ['The Old Rugged Cross', 'Old Rugged Cross'],
    ['Holy, Holy, Holy! (Lord God Almighty) [Live]', 'Holy Holy Holy'],
    ['Be Thou My Vision', 'BE THOU MY VISION!'],
    ['Ô Holy Night', 'O Holy Night'],
    ['The Church\u2019s One Foundation', "The Church's One Foundation"],
  ])('%p and %p are one title', (a, b) => {
    expect(titleKey(a)).toBe(titleKey(b));
  });

  test.each([
    ['Amazing Grace', 'Amazing Love'],
    ['10,000 Reasons', '1,000 Reasons'],
    ['The', 'A'],
    // What is only a suffix is the title.
    ['(Live)', 'Live Forever'],
  ])('%p and %p are two titles', (a, b) => {
    expect(titleKey(a)).not.toBe(titleKey(b));
  });

  test('a title is never folded to nothing when it has a letter or digit, and folding twice changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (title) => {
        const key = titleKey(title);
        if (/[\p{L}\p{N}]/u.test(title.normalize('NFKD').replace(/\p{M}/gu, ''))) expect(key).not.toBe('');
        expect(titleKey(key)).toBe(key);
      }),
    );
  });
});

describe('SongMatcher: CCLI number, then title, then artists, else ambiguous', () => {
  const songs = [
    { id: 1, name: 'Cornerstone', artists: ['Hillsong Worship'], ccliNumber: null },
    { id: 2, name: 'Amazing Grace', artists: ['John Newton'], ccliNumber: '22025' },
    { id: 3, name: 'Amazing Grace (My Chains Are Gone)', artists: ['Chris Tomlin'], ccliNumber: '4768151' },
    { id: 4, name: 'Holy Spirit', artists: ['Francesca Battistelli'], ccliNumber: null },
    { id: 5, name: 'Holy Spirit', artists: ['Bryan Torwalt', 'Katie Torwalt'], ccliNumber: null },
    { id: 6, name: 'Holy Spirit', artists: ['Someone', 'Katie Torwalt'], ccliNumber: null },
  ];
  const matcher = new SongMatcher(songs);

  test('by CCLI number, whatever the title', () => {
    expect(matcher.match({ name: 'Anything', artists: [], ccliNumber: '4768151' })).toEqual({ kind: 'ccli', song: songs[2] });
  });

  test('by title when one song has it, whatever the artists', () => {
    expect(matcher.match({ name: 'CORNERSTONE (Live)', artists: ['Edward Mote'], ccliNumber: '6158927' })).toEqual({ kind: 'title', song: songs[0] });
  });

  test('another CCLI number is another song, even under the same title', () => {
    // Songs 2 and 3 share a normalised title; the row's number rules out the one with another number.
    expect(matcher.match({ name: 'Amazing Grace', artists: [], ccliNumber: '999' })).toEqual({ kind: 'none' });
  });

  test('several with the title: the one whose artists overlap; else ambiguous with the candidates', () => {
    expect(matcher.match({ name: 'Holy Spirit', artists: ['francesca battistelli'] })).toEqual({ kind: 'artists', song: songs[3] });
    expect(matcher.match({ name: 'Holy Spirit', artists: ['Katie Torwalt'] })).toEqual({ kind: 'ambiguous', candidates: [5, 6] });
    expect(matcher.match({ name: 'Holy Spirit', artists: [] })).toEqual({ kind: 'ambiguous', candidates: [4, 5, 6] });
    expect(matcher.match({ name: 'Amazing Grace', artists: [] })).toEqual({ kind: 'ambiguous', candidates: [2, 3] });
  });

  test('groups of songs sharing a title', () => {
    expect(matcher.titleGroups().map((g) => g.map((s) => s.id))).toEqual([[2, 3], [4, 5, 6]]);
  });
});

test.each([
  ['7115744', '7115744'],
  [' CCLI 7115744 ', '7115744'],
  ['ccli# 7115744', '7115744'],
  ['CCLI Song Number: 7115744', '7115744'],
  ['#7115744', '7115744'],
  ['CCLI-7115744x', 'CCLI-7115744x'],
])('the CCLI number in %p is %p', (cell, number) => {
  expect(ccliNumberOf(cell)).toBe(number);
});

test('a bare number is no prefixed CCLI number (a setlist reads it as a number or an id)', () => {
  expect(prefixedCcliNumber('7115744')).toBeUndefined();
  expect(prefixedCcliNumber('#7115744')).toBe('7115744');
});
