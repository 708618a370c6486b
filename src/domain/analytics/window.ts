import { beforeRange, DateFormatError, parseBound, type Bound } from '../dates';
import { AppError } from '../../errors';
import type { ServiceType } from '../../generated/graphql';

/** Every service type, in enum order: the order of `byServiceType` entries. */
export const SERVICE_TYPES: readonly ServiceType[] = ['SUN_AM', 'SUN_PM', 'WED'];

/** An analytics window: inclusive epoch-ms bounds, each null when open, and the service types. */
export interface Window {
  from: number | null;
  to: number | null;
  /** Distinct, in enum order; all three when the filter was absent or empty. */
  serviceTypes: ServiceType[];
}

export const allTime = (w: Window) => w.from === null && w.to === null;

/** A 400 whose message starts with the parameter's name, like the other bad query values. */
export const badParameter = (field: string, message: string) => new AppError('BAD_REQUEST', `${field}: ${message}`);

/** A whole-number parameter with a documented range and default: its value, or a 400 naming it. */
export function rangedParameter(field: string, range: { minimum: number; maximum: number; default: number }, value: number | null | undefined): number {
  const v = value ?? range.default;
  if (v < range.minimum || v > range.maximum) throw badParameter(field, `must be between ${range.minimum} and ${range.maximum}`);
  return v;
}

/** A date parameter as parseBound reads it (an instant or a day in `zone`), or a 400 naming it. */
export function boundParameter(field: string, text: string, zone: string): Bound {
  try {
    return parseBound(text, zone);
  } catch (err) {
    if (err instanceof DateFormatError) throw badParameter(field, err.message);
    throw err;
  }
}

function bound(field: string, text: string | null | undefined, zone: string, edge: 'first' | 'last'): number | null {
  if (text == null) return null;
  const b = boundParameter(field, text, zone);
  if (b.kind === 'instant') return b.at;
  return edge === 'first' ? b.start : b.end;
}

export function serviceTypesOf(types: readonly ServiceType[] | null | undefined): ServiceType[] {
  if (!types || types.length === 0) return [...SERVICE_TYPES];
  return SERVICE_TYPES.filter((t) => types.includes(t));
}

/**
 * `from` (an instant, or the start of a YYYY-MM-DD day in `zone`) to `to` (an instant, or the end
 * of its day), both optional, as `byDate/between` reads them.
 */
export function parseWindow(
  args: { from?: string | null; to?: string | null; serviceTypes?: readonly ServiceType[] | null },
  zone: string,
): Window {
  const from = bound('from', args.from, zone, 'first');
  const to = bound('to', args.to, zone, 'last');
  if (from !== null && to !== null && from > to) throw badParameter('to', 'must not be earlier than from');
  return { from, to, serviceTypes: serviceTypesOf(args.serviceTypes) };
}

/** Rotation's cut-off: strictly before the instant, or before the start of the day. */
export function parseBefore(field: string, text: string, zone: string): number {
  return beforeRange(boundParameter(field, text, zone)).max;
}
