/**
 * A song's licensing details (docs/API.md, Songs): its CCLI song number and its copyright line,
 * as a church's licensing report needs them. Shared by both facades, the stores and the import.
 */

/** CCLI song numbers are whole numbers: 1 to 10 digits, written as given. */
export const CCLI_DIGITS = '[0-9]{1,10}';
export const CCLI_NUMBER = new RegExp(`^${CCLI_DIGITS}$`);
export const COPYRIGHT_MAX_LENGTH = 500;

/** What a store keeps per song; null when not recorded. */
export interface SongLicensing {
  ccliNumber: string | null;
  copyright: string | null;
}

export const NO_LICENSING: SongLicensing = { ccliNumber: null, copyright: null };

/**
 * An argument as given (already validated) to what the store writes: absent keeps the stored
 * value (undefined), and an empty or blank string records none (null), since `null` itself is
 * never accepted for a field.
 */
export function licensingValue(given: string | null | undefined): string | null | undefined {
  if (given == null) return undefined;
  return given.trim() === '' ? null : given;
}
