import { artistKey } from '../../domain/artists';
import { assertId, rules, validate } from '../../domain/validation';
import { notFound } from '../../errors';
import type { Resolvers } from '../../generated/graphql';
import type { SongRecord } from '../../store/types';
import type { GraphQLContext } from '../context';
import { connection, itemsOf, pageOf } from './paging';
import { serviceFilter } from './services-filter';

export async function requireSong(ctx: GraphQLContext, id: number) {
  const song = await ctx.loaders.song.load(assertId(id, 'songId'));
  if (!song) throw notFound('Song', id);
  return song;
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
      return ctx.store.createSong({ name: input.name, artists: input.artists ?? [] });
    },
    updateSong: async (_, { id, ...fields }, ctx) => {
      const patch = validate(rules.updateSong, fields);
      const song = await ctx.store.updateSong(assertId(id), patch);
      if (!song) throw notFound('Song', id);
      ctx.loaders.song.clear(id).prime(id, song);
      return song;
    },
    deleteSong: async (_, { id }, ctx) => {
      if (!(await ctx.store.deleteSong(assertId(id)))) throw notFound('Song', id);
      ctx.loaders.song.clear(id);
      return true;
    },
  },
  Song: {
    services: async (song, args, ctx, info) =>
      itemsOf(ctx, info, await ctx.loaders.performancePage({ filter: serviceFilter(args), page: pageOf(args) }).load(song.id)),
  },
};
