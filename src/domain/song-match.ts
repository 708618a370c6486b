import { artistKey } from './artists';

/**
 * Which stored song a row of a song list, a setlist or a duplicate check means: one rule
 * (docs/operations.md, "Which song a row means"), used by the import of songs and of services.
 *
 * 1. The **CCLI number**: a song that has the row's number is the row's song, whatever its title.
 * 2. Else the **normalised title** (`titleKey`): when exactly one song has it, that song,
 *    whatever the artists (song lists name songwriters where the store may list performers).
 *    A song with a CCLI number other than the row's is never a candidate: two numbers are two songs.
 * 3. With several, the one whose **artists overlap** the row's, when exactly one does.
 * 4. Otherwise **ambiguous**, with the candidates' ids: never guessed.
 */

/** Words a title may end with in brackets or after a dash that name a recording, not a song. */
const SUFFIX = /\s*(?:\([^()]*\)|\[[^[\]]*\]|\s[-–—]\s[^-–—]*)$/u;

/**
 * A title as the rule compares it: accents, case and punctuation folded; digit groups joined
 * ("10,000" and "10000"); a trailing parenthesised, bracketed or dashed suffix ("(Live)",
 * "- Acoustic") and a leading "The" dropped. A title that is nothing but such a suffix keeps it.
 */
export function titleKey(title: string): string {
  let text = title.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();
  for (;;) {
    const shorter = text.replace(SUFFIX, '');
    if (shorter === text || shorter.trim() === '') break;
    text = shorter;
  }
  text = text.replace(/(\d)[,.'’ ](?=\d{3}(?!\d))/gu, '$1');
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}

/** What the rule needs of a stored song. */
export interface MatchableSong {
  id: number;
  name: string;
  artists: readonly string[];
  ccliNumber: string | null;
}

/** Stored songs with their licensing details (in the same order) as the rule reads them. */
export function matchableSongs(
  songs: readonly { id: number; name: string; artists: readonly string[] }[],
  licensing: readonly ({ ccliNumber: string | null } | null)[],
): MatchableSong[] {
  return songs.map((s, i) => ({ id: s.id, name: s.name, artists: s.artists, ccliNumber: licensing[i]?.ccliNumber ?? null }));
}

export interface SongQuery {
  name: string;
  artists: readonly string[];
  ccliNumber?: string | null;
}

export type SongMatch<S extends MatchableSong = MatchableSong> =
  | { kind: 'ccli' | 'title' | 'artists'; song: S }
  | { kind: 'ambiguous'; candidates: number[] }
  | { kind: 'none' };

/** How a match was made, for people (an import's report). */
export const MATCH_REASON: Record<'ccli' | 'title' | 'artists', string> = {
  ccli: 'by CCLI number',
  title: 'by title',
  artists: 'by title and artists',
};

const overlaps = (a: readonly string[], b: readonly string[]) => {
  const keys = new Set(a.map(artistKey));
  return b.some((x) => keys.has(artistKey(x)));
};

/** The catalogue indexed for the rule; songs added later (earlier rows of a file) count too. */
export class SongMatcher<S extends MatchableSong = MatchableSong> {
  private readonly byCcli = new Map<string, S>();
  private readonly byTitle = new Map<string, S[]>();

  constructor(songs: Iterable<S> = []) {
    for (const song of songs) this.add(song);
  }

  add(song: S): void {
    if (song.ccliNumber && !this.byCcli.has(song.ccliNumber)) this.byCcli.set(song.ccliNumber, song);
    const key = titleKey(song.name);
    const list = this.byTitle.get(key);
    if (list) list.push(song);
    else this.byTitle.set(key, [song]);
  }

  /** A song gained a CCLI number: find it by that number from now on. */
  numbered(song: S): void {
    if (song.ccliNumber && !this.byCcli.has(song.ccliNumber)) this.byCcli.set(song.ccliNumber, song);
  }

  match(query: SongQuery): SongMatch<S> {
    const ccli = query.ccliNumber || null;
    if (ccli) {
      const song = this.byCcli.get(ccli);
      if (song) return { kind: 'ccli', song };
    }
    const candidates = (this.byTitle.get(titleKey(query.name)) ?? []).filter((s) => !(ccli && s.ccliNumber && s.ccliNumber !== ccli));
    if (candidates.length === 0) return { kind: 'none' };
    if (candidates.length === 1) return { kind: 'title', song: candidates[0] };
    const sharing = candidates.filter((s) => overlaps(s.artists, query.artists));
    if (sharing.length === 1) return { kind: 'artists', song: sharing[0] };
    return { kind: 'ambiguous', candidates: (sharing.length > 1 ? sharing : candidates).map((s) => s.id) };
  }

  /** A song by its CCLI number. */
  byNumber(ccliNumber: string): S | undefined {
    return this.byCcli.get(ccliNumber);
  }

  /** Songs the rule cannot tell apart by title: groups of two or more sharing a normalised title. */
  titleGroups(): S[][] {
    return [...this.byTitle.values()].filter((g) => g.length > 1);
  }
}

const PREFIXED_CCLI = /^(?:ccli\s*(?:song\s*)?(?:number|no\.?|#)?\s*[:#]?\s*|#\s*)(\d+)$/iu;

/** `CCLI 7115744`, `CCLI# 7115744`, `CCLI Song Number: 7115744`, `#7115744` → `7115744`; else undefined. */
export function prefixedCcliNumber(text: string): string | undefined {
  return PREFIXED_CCLI.exec(text.trim())?.[1];
}

/** A CCLI number cell: `7115744` or a prefixed form as above; anything else as given (reported as it was written). */
export function ccliNumberOf(text: string): string {
  return prefixedCcliNumber(text) ?? text.trim();
}
