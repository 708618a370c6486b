import { artistKey } from '../../domain/artists';
import { assertId, rules, validate } from '../../domain/validation';
import { notFound } from '../../errors';
import type { Resolvers } from '../../generated/graphql';
import type { GraphQLContext } from '../context';
import { page } from './paging';

export async function requireSong(ctx: GraphQLContext, id: number) {
  const song = await ctx.loaders.song.load(assertId(id, 'songId'));
  if (!song) throw notFound('Song', id);
  return song;
}

export const songResolvers: Resolvers = {
  Query: {
    songs: async (_, args, ctx) => page(ctx, await ctx.store.listSongs(), args),
    song: (_, { id }, ctx) => ctx.loaders.song.load(assertId(id)),
    songsByArtist: async (_, args, ctx) => page(ctx, await ctx.store.songsByArtistKey(artistKey(args.artist)), args),
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
    services: (song, _, ctx) => ctx.loaders.performances.load(song.id),
  },
};
