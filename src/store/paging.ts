import type { ServiceType } from '../generated/graphql';
import type { Page } from './types';

/** Every service type: the filter both stores apply when none is asked for. */
export const ALL_SERVICE_TYPES: readonly ServiceType[] = ['SUN_AM', 'SUN_PM', 'WED'];

/** The 1-based rank of a page's last row in its parent's list (the whole list without a limit). */
export const pageEnd = (page: Page = {}): number =>
  page.limit === undefined ? Number.MAX_SAFE_INTEGER : (page.offset ?? 0) + page.limit;
