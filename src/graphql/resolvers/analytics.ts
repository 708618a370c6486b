import type { GraphQLResolveInfo } from 'graphql';
import { bucketsBetween, isPartial } from '../../domain/analytics/buckets';
import { SUNG_OFTEN_PARAMETERS } from '../../domain/analytics/sung-often';
import { badParameter, boundParameter, parseBefore, parseWindow, rangedParameter, serviceTypesOf } from '../../domain/analytics/window';
import { checkPage, MAX_PAGE } from '../../domain/validation';
import type { Resolvers, ServiceType } from '../../generated/graphql';
import type { AnalyticsWindow, Ranked, SongUsageRecord } from '../../store/analytics-types';
import { ROTATION_BOUNDS, ROTATION_DEFAULTS, rhythmWindow, rotationOf, type RotationThresholds } from '../../domain/analytics/rotation';
import type { GraphQLContext } from '../context';
import { itemsOf } from './paging';
import { licensingOf, requireSong } from './songs';

export const DEFAULT_PAIRINGS = 20;

// Beside `song` for the licensing report: REST's song record has no room for them. Read with
// the row when the report's statement had them, answered without a promise per row.
const usageLicensing = {
  ccliNumber: (usage: SongUsageRecord, _: unknown, ctx: GraphQLContext) =>
    usage.licensing ? usage.licensing.ccliNumber : licensingOf(ctx, usage.song.id).then((l) => l.ccliNumber),
  copyright: (usage: SongUsageRecord, _: unknown, ctx: GraphQLContext) =>
    usage.licensing ? usage.licensing.copyright : licensingOf(ctx, usage.song.id).then((l) => l.copyright),
};

type RotationArgs = { asOf?: string | null } & { [K in keyof RotationThresholds]?: number | null };

/** A song's rotation (src/domain/analytics/rotation.ts): the thresholds checked, its rhythm read in a batch per horizon. */
async function rotation(ctx: GraphQLContext, songId: number, args: RotationArgs) {
  const t = { ...ROTATION_DEFAULTS };
  for (const name of Object.keys(ROTATION_BOUNDS) as (keyof RotationThresholds)[]) {
    const value = args[name];
    if (value === null || value === undefined) continue;
    const { minimum, maximum } = ROTATION_BOUNDS[name];
    if (value < minimum || value > maximum) throw badParameter(name, `must be between ${minimum} and ${maximum}`);
    t[name] = value;
  }
  const asOf = args.asOf == null ? Date.now() : parseAsOf(args.asOf, ctx.serviceTimeZone);
  const data = await ctx.loaders.rhythm(rhythmWindow(asOf, t.horizonWeeks)).load(songId);
  return rotationOf(data, asOf, t);
}

/** An instant as it is; a day to its end, so that its own services count as sung. */
function parseAsOf(text: string, zone: string): number {
  const bound = boundParameter('asOf', text, zone);
  return bound.kind === 'day' ? bound.end : bound.at;
}

/** The page of a ranked list, noting the full count for REST's X-Total-Count. */
function ranked<T>(ctx: GraphQLContext, info: GraphQLResolveInfo, result: Ranked<T>): T[] {
  return itemsOf(ctx, info, { items: result.items, totalCount: result.total });
}

const allTimeOf = (serviceTypes: readonly ServiceType[] | null | undefined): AnalyticsWindow => ({
  from: null,
  to: null,
  serviceTypes: serviceTypesOf(serviceTypes),
});

export const analyticsResolvers: Resolvers = {
  Query: {
    songUsage: async (_, args, ctx, info) => {
      const window = parseWindow(args, ctx.serviceTimeZone);
      const { limit, offset } = checkPage(args);
      const result = await ctx.store.songUsage({
        window,
        sort: args.sort ?? 'TIMES_SUNG',
        includeUnsung: args.includeUnsung ?? false,
        limit,
        offset,
      });
      return ranked(ctx, info, result);
    },
    songsNotSungSince: async (_, args, ctx, info) => {
      const lastBefore = parseBefore('date', args.date, ctx.serviceTimeZone);
      const result = await ctx.store.songUsage({
        window: allTimeOf(args.serviceTypes),
        sort: 'LEAST_RECENTLY_SUNG',
        includeUnsung: true,
        lastBefore,
      });
      return ranked(ctx, info, result);
    },
    newSongs: async (_, args, ctx, info) => {
      const firstIn = parseWindow(args, ctx.serviceTimeZone);
      const result = await ctx.store.songUsage({
        window: allTimeOf(args.serviceTypes),
        sort: 'FIRST_SUNG',
        includeUnsung: false,
        firstIn,
      });
      return ranked(ctx, info, result);
    },
    songsSungWith: async (_, args, ctx) => {
      const window = parseWindow(args, ctx.serviceTimeZone);
      const limit = args.limit ?? DEFAULT_PAIRINGS;
      if (limit < 1 || limit > MAX_PAGE) throw badParameter('limit', `must be between 1 and ${MAX_PAGE}`);
      await requireSong(ctx, args.songId);
      return ctx.store.songsSungWith(args.songId, window, limit);
    },
    usageTimeline: async (_, args, ctx) => {
      const window = parseWindow(args, ctx.serviceTimeZone);
      if (args.songId != null) await requireSong(ctx, args.songId);
      let { from: first, to: last } = window;
      if (first === null || last === null) {
        const span = await ctx.store.serviceSpan(window.serviceTypes);
        first ??= span?.first ?? null;
        last ??= span?.last ?? null;
      }
      // No service to anchor an open end: there is no bucket to show.
      if (first === null || last === null || first > last) return [];
      const buckets = bucketsBetween(first, last, args.bucket, ctx.serviceTimeZone);
      // The store counts each bucket inside the window only (the edge buckets it cuts, partly).
      const counted = await ctx.store.usageTimeline(buckets, window, args.songId ?? null);
      return counted.map((row, i) => ({ ...row, partial: isPartial(buckets[i], window) }));
    },
    songUsageById: async (_, { songId, ...window }, ctx) => {
      const song = await requireSong(ctx, songId);
      return { song, ...(await ctx.loaders.usage(parseWindow(window, ctx.serviceTimeZone)).load(song.id)) };
    },
    songsSungOften: async (_, args, ctx) => {
      const { to, serviceTypes } = parseWindow({ to: args.to, serviceTypes: args.serviceTypes }, ctx.serviceTimeZone);
      const lastServices = rangedParameter('lastServices', SUNG_OFTEN_PARAMETERS.lastServices, args.lastServices);
      const moreThanPercent = rangedParameter('moreThanPercent', SUNG_OFTEN_PARAMETERS.moreThanPercent, args.moreThanPercent);
      return ctx.store.songsSungOften({ to, serviceTypes, lastServices, moreThanPercent });
    },
    artistUsage: async (_, args, ctx, info) => {
      const window = parseWindow(args, ctx.serviceTimeZone);
      return ranked(ctx, info, await ctx.store.artistUsage(window, checkPage(args)));
    },
  },
  SongUsage: usageLicensing,
  SongUsageOfSong: {
    ...usageLicensing,
    rotation: (usage, _, ctx) => rotation(ctx, usage.song.id, {}),
  },
  Song: {
    usage: async (song, args, ctx) => ({
      song,
      ...(await ctx.loaders.usage(parseWindow(args, ctx.serviceTimeZone)).load(song.id)),
    }),
    rotation: (song, args, ctx) => rotation(ctx, song.id, args),
  },
};
