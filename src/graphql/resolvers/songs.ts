import { ARTISTS_MAX, artistKey } from '../../domain/artists';
import { licensingValue, NO_LICENSING, type SongLicensing } from '../../domain/licensing';
import { assertId, rules, validate } from '../../domain/validation';
import { notFound, validationFailed } from '../../errors';
import type { Resolvers } from '../../generated/graphql';
import { isMergeRefused, type SongRecord } from '../../store/types';
import type { GraphQLContext } from '../context';
import { connection, itemsOf, pageOf } from './paging';
import { serviceQuery } from './services-filter';

export async function requireSong(ctx: GraphQLContext, id: number) {
  const song = await ctx.loaders.song.load(assertId(id, 'songId'));
  if (!song) throw notFound('Song', id);
  return song;
}

/** A song's licensing details, batched per request (none for a song that no longer exists). */
export async function licensingOf(ctx: GraphQLContext, songId: number): Promise<SongLicensing> {
  return (await ctx.loaders.licensing.load(songId)) ?? NO_LICENSING;
}

export const songResolvers: Resolvers = {
  Query: {
    songs: async (_, args, ctx, info) => {
      const { search } = validate(rules.listSongs, { search: args.search, sort: args.sort });
      const page = pageOf(args);
      return itemsOf(ctx, info, await ctx.store.listSongs({ search, sort: args.sort ?? undefined }, page));
    },
    songsConnection: (_, args, ctx) => {
      const sort = args.sort ?? 'ID_ASC';
      const byName = sort.startsWith('NAME');
      return connection<SongRecord>(
        args,
        { list: 'songs', sort, filter: '', keyType: byName ? 'string' : 'integer' },
        (song) => (byName ? song.name : song.id),
        (page) => ctx.store.songsAfter(sort, page),
      );
    },
    song: (_, { id }, ctx) => ctx.loaders.song.load(assertId(id)),
    songsByArtist: async (_, args, ctx, info) =>
      itemsOf(ctx, info, await ctx.store.songsByArtistKey(artistKey(args.artist), pageOf(args))),
  },
  Mutation: {
    createSong: (_, args, ctx) => {
      const input = validate(rules.createSong, args);
      return ctx.store.createSong({
        name: input.name,
        artists: input.artists ?? [],
        ccliNumber: licensingValue(input.ccliNumber) ?? null,
        copyright: licensingValue(input.copyright) ?? null,
      });
    },
    updateSong: async (_, { id, ...fields }, ctx) => {
      const { ccliNumber, copyright, ...rest } = validate(rules.updateSong, fields);
      const patch = { ...rest, ccliNumber: licensingValue(ccliNumber), copyright: licensingValue(copyright) };
      const song = await ctx.store.updateSong(assertId(id), patch);
      if (!song) throw notFound('Song', id);
      ctx.loaders.song.clear(id).prime(id, song);
      ctx.loaders.licensing.clear(id);
      return song;
    },
    deleteSong: async (_, { id }, ctx) => {
      if (!(await ctx.store.deleteSong(assertId(id)))) throw notFound('Song', id);
      ctx.loaders.song.clear(id);
      ctx.loaders.licensing.clear(id);
      return true;
    },
    mergeSongs: async (_, args, ctx) => {
      const { keepId, mergeIds } = validate(rules.mergeSongs, args);
      const result = await ctx.store.mergeSongs(assertId(keepId, 'keepId'), mergeIds);
      if (isMergeRefused(result)) {
        if (result.refused === 'no-song') throw notFound('Song', result.songId);
        throw validationFailed([{ field: 'mergeIds', message: `the kept song would list more than ${ARTISTS_MAX} artists` }]);
      }
      for (const id of [keepId, ...mergeIds]) {
        ctx.loaders.song.clear(id);
        ctx.loaders.licensing.clear(id);
      }
      ctx.loaders.song.prime(keepId, result);
      return result;
    },
  },
  Song: {
    ccliNumber: async (song, _, ctx) => (await licensingOf(ctx, song.id)).ccliNumber,
    copyright: async (song, _, ctx) => (await licensingOf(ctx, song.id)).copyright,
    services: async (song, args, ctx, info) =>
      itemsOf(ctx, info, await ctx.loaders.performancePage({ query: serviceQuery(args), page: pageOf(args) }).load(song.id)),
  },
};
