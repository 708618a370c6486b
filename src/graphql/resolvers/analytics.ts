import type { GraphQLResolveInfo } from 'graphql';
import { bucketsBetween, isPartial } from '../../domain/analytics/buckets';
import { sungOftenParameter } from '../../domain/analytics/sung-often';
import { badParameter, parseBefore, parseWindow, serviceTypesOf } from '../../domain/analytics/window';
import { checkPage, MAX_PAGE } from '../../domain/validation';
import type { Resolvers, ServiceType } from '../../generated/graphql';
import type { AnalyticsWindow, Ranked } from '../../store/analytics-types';
import type { GraphQLContext } from '../context';
import { itemsOf } from './paging';
import { licensingOf, requireSong } from './songs';

export const DEFAULT_PAIRINGS = 20;

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
      const lastServices = sungOftenParameter('lastServices', args.lastServices);
      if (typeof lastServices === 'string') throw badParameter('lastServices', lastServices);
      const moreThanPercent = sungOftenParameter('moreThanPercent', args.moreThanPercent);
      if (typeof moreThanPercent === 'string') throw badParameter('moreThanPercent', moreThanPercent);
      return ctx.store.songsSungOften({ to, serviceTypes, lastServices, moreThanPercent });
    },
    artistUsage: async (_, args, ctx, info) => {
      const window = parseWindow(args, ctx.serviceTimeZone);
      return ranked(ctx, info, await ctx.store.artistUsage(window, checkPage(args)));
    },
  },
  SongUsage: {
    // Beside `song` for the licensing report: REST's song record has no room for them. Read with
    // the row when the report's statement had them, answered without a promise per row.
    ccliNumber: (usage, _, ctx) => (usage.licensing ? usage.licensing.ccliNumber : licensingOf(ctx, usage.song.id).then((l) => l.ccliNumber)),
    copyright: (usage, _, ctx) => (usage.licensing ? usage.licensing.copyright : licensingOf(ctx, usage.song.id).then((l) => l.copyright)),
  },
  Song: {
    usage: async (song, args, ctx) => ({
      song,
      ...(await ctx.loaders.usage(parseWindow(args, ctx.serviceTimeZone)).load(song.id)),
    }),
  },
};
