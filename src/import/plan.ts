/** What an import will do with each row of a file, decided in full before anything is written. */
export interface Plan<T> {
  create: { line: number; input: T }[];
  skipped: { line: number; reason: string }[];
  rejected: { line: number; reason: string }[];
}
