/**
 * The parameters of "songs sung often" (songsSungOften, GET /reports/sungOften) in one place: the
 * resolver checks them, the OpenAPI document states them, docs/API.md describes them.
 * The defaults: a month of three services a week, and "more than half of them".
 */
export const SUNG_OFTEN_PARAMETERS = {
  lastServices: { minimum: 1, maximum: 1000, default: 12 },
  /** 100 would ask for more than every service: nothing could ever qualify. */
  moreThanPercent: { minimum: 0, maximum: 99, default: 50 },
} as const;
