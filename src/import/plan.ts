/** What an import will do with each row of a file, decided in full before anything is written. */
export interface Plan<T> {
  /** `what` describes the record for people (a dry run lists them). */
  create: { line: number; input: T; what: string }[];
  skipped: { line: number; reason: string }[];
  rejected: { line: number; reason: string }[];
}
