import { suggest } from '../../domain/analytics/suggest';
import { SUGGESTION_PARAMETERS, targetOf } from '../../domain/analytics/suggestions';
import { badParameter, boundParameter, rangedParameter } from '../../domain/analytics/window';
import { assertId } from '../../domain/validation';
import { notFound } from '../../errors';
import type { QuerySuggestSongsArgs, Resolvers } from '../../generated/graphql';
import type { GraphQLContext } from '../context';

/** The service asked about: an existing one (its setlist the default choice), or a date and type. */
async function targetOfArgs(ctx: GraphQLContext, args: QuerySuggestSongsArgs) {
  const zone = ctx.serviceTimeZone;
  if (args.serviceId != null) {
    if (args.date != null || args.serviceType != null) {
      throw badParameter('serviceId', 'give either serviceId, or date and serviceType, not both');
    }
    const service = await ctx.loaders.service.load(assertId(args.serviceId, 'serviceId'));
    if (!service) throw notFound('Service', args.serviceId);
    return { target: targetOf(service.id, service.date, service.serviceType, zone), setlist: () => ctx.loaders.setlist.load(service.id) };
  }
  if (args.date == null) throw badParameter('date', 'is required without serviceId');
  if (args.serviceType == null) throw badParameter('serviceType', 'is required without serviceId');
  const bound = boundParameter('date', args.date, zone);
  const at = bound.kind === 'day' ? bound.start : bound.at;
  return { target: targetOf(null, at, args.serviceType, zone), setlist: async () => [] };
}

export const suggestionResolvers: Resolvers = {
  Query: {
    suggestSongs: async (_, args, ctx) => {
      const limit = rangedParameter('limit', SUGGESTION_PARAMETERS.limit, args.limit);
      const most = SUGGESTION_PARAMETERS.chosen.maximum;
      if (args.chosen && args.chosen.length > most) throw badParameter('chosen', `at most ${most} songs`);
      const { target, setlist } = await targetOfArgs(ctx, args);
      let chosen;
      if (args.chosen) {
        const ids = [...new Set(args.chosen)];
        for (const id of ids) assertId(id, 'chosen');
        const songs = await ctx.loaders.song.loadMany(ids);
        // As a setlist naming a song that does not exist: a 404 for the first one missing.
        const missing = ids.find((_, i) => !songs[i] || songs[i] instanceof Error);
        if (missing !== undefined) throw notFound('Song', missing);
        chosen = songs as Exclude<(typeof songs)[number], Error | null>[];
      } else {
        chosen = await setlist();
      }
      return suggest(ctx.store, target, chosen, limit);
    },
  },
};
