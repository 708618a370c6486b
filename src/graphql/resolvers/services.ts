import { songsPageAsked } from '../lookahead';
import { afterRange, beforeRange, betweenRange, DateFormatError, isServiceDay, parseBound, serviceInstant, type ServiceDay } from '../../domain/dates';
import { assertId, rules, validate } from '../../domain/validation';
import { SETLIST_MAX_SONGS } from '../../domain/setlist';
import { AppError, CONFLICTS, notFound, validationFailed } from '../../errors';
import type { Resolvers, ServiceType } from '../../generated/graphql';
import { isSlotTaken, type DateRange, type LinkSongResult, type ServiceRecord, type SlotTaken } from '../../store/types';
import type { GraphQLContext } from '../context';
import { connection, itemsOf, pageOf } from './paging';
import { serviceFilter, serviceQuery } from './services-filter';
import { requireSong } from './songs';

async function requireService(ctx: GraphQLContext, id: number) {
  const service = await ctx.loaders.service.load(assertId(id, 'serviceId'));
  if (!service) throw notFound('Service', id);
  return service;
}

/** Date bounds that do not parse, or a reversed range, are the caller's mistake: 400. */
function range(build: () => DateRange): DateRange {
  try {
    return build();
  } catch (err) {
    if (err instanceof DateFormatError) throw new AppError('BAD_REQUEST', err.message);
    throw err;
  }
}

/** One service per date and type (docs/API.md): the write names the service that has them. */
function slotFree<T>(result: T | SlotTaken): T {
  if (isSlotTaken(result)) throw CONFLICTS.serviceSlotTaken(result.slotTakenBy);
  return result;
}

function linkOutcome(result: LinkSongResult | 'not-linked', serviceId: number, songId: number): void {
  if (result === 'no-service') throw notFound('Service', serviceId);
  if (result === 'no-song') throw notFound('Song', songId);
  if (result === 'setlist-full') {
    throw validationFailed([{ field: 'songId', message: `cannot be added: the setlist already holds ${SETLIST_MAX_SONGS} songs, the most a service holds` }]);
  }
  if (result === 'not-linked') throw new AppError('NOT_FOUND', `Song ${songId} is not in the setlist of service ${serviceId}`);
}

/** The setlist after a write: drop what this request cached before the write. */
function freshSetlist(ctx: GraphQLContext, serviceId: number) {
  return ctx.loaders.setlist.clear(serviceId).load(serviceId);
}


/** A service date as the store keeps it: a day alone at the type's usual time in the service zone. */
function instantOf(date: number | ServiceDay, type: ServiceType, ctx: GraphQLContext): number {
  try {
    return serviceInstant(date, type, ctx.serviceTimeZone, ctx.serviceTimes);
  } catch (err) {
    if (err instanceof DateFormatError) throw validationFailed([{ field: 'date', message: err.message }]);
    throw err;
  }
}
export const serviceResolvers: Resolvers = {
  Query: {
    services: async (_, args, ctx, info) =>
      itemsOf(ctx, info, await ctx.store.listServices({ ...serviceFilter(args), sort: args.sort ?? undefined }, pageOf(args))),
    servicesConnection: (_, args, ctx) => {
      const filter = serviceFilter(args);
      const sort = args.sort ?? 'DATE_ASC';
      return connection<ServiceRecord>(
        args,
        { list: 'services', sort, filter: filter.serviceTypes?.join(',') ?? '', keyType: 'integer' },
        (service) => service.date,
        (page) => ctx.store.servicesAfter({ ...filter, sort }, page),
      );
    },
    service: (_, { id }, ctx, info) => {
      const serviceId = assertId(id);
      const page = songsPageAsked(info);
      return page ? ctx.loaders.serviceWithSetlist(page).load(serviceId) : ctx.loaders.service.load(serviceId);
    },
    songsForService: async (_, args, ctx, info) => {
      await requireService(ctx, args.serviceId);
      return itemsOf(ctx, info, await ctx.loaders.setlistPage(pageOf(args)).load(args.serviceId));
    },
    servicesWithSong: async (_, args, ctx, info) => {
      await requireSong(ctx, args.songId);
      const loader = ctx.loaders.performancePage({ query: serviceQuery(args), page: pageOf(args) });
      return itemsOf(ctx, info, await loader.load(args.songId));
    },
    servicesAfter: async (_, args, ctx, info) => {
      const r = range(() => afterRange(parseBound(args.date, ctx.serviceTimeZone)));
      return itemsOf(ctx, info, await ctx.store.servicesInRange(r, serviceFilter(args), pageOf(args)));
    },
    servicesBefore: async (_, args, ctx, info) => {
      const r = range(() => beforeRange(parseBound(args.date, ctx.serviceTimeZone)));
      return itemsOf(ctx, info, await ctx.store.servicesInRange(r, serviceFilter(args), pageOf(args)));
    },
    servicesBetween: async (_, args, ctx, info) => {
      const r = range(() =>
        betweenRange(parseBound(args.from, ctx.serviceTimeZone), parseBound(args.to, ctx.serviceTimeZone)),
      );
      return itemsOf(ctx, info, await ctx.store.servicesInRange(r, serviceFilter(args), pageOf(args)));
    },
  },
  Mutation: {
    // date and serviceType are checked by their GraphQL types (Timestamp, ServiceType); a date
    // given as a day alone takes the type's usual time (SERVICE_TIMES) in SERVICE_TIME_ZONE.
    createService: async (_, args, ctx) =>
      slotFree(await ctx.store.createService({ date: instantOf(args.date, args.serviceType, ctx), serviceType: args.serviceType })),
    updateService: async (_, { id, date, serviceType }, ctx) => {
      if (date === null || serviceType === null) {
        throw new AppError('VALIDATION_FAILED', 'The request is not valid', {
          details: [{ field: date === null ? 'date' : 'serviceType', message: 'must not be null' }],
        });
      }
      let at: number | undefined;
      if (isServiceDay(date)) {
        // A day alone: at the usual time of the type it will have.
        const type = serviceType ?? (await ctx.loaders.service.load(assertId(id)))?.serviceType;
        if (!type) throw notFound('Service', id);
        at = instantOf(date, type, ctx);
      } else at = date;
      const service = slotFree(await ctx.store.updateService(assertId(id), { date: at, serviceType }));
      if (!service) throw notFound('Service', id);
      ctx.loaders.service.clear(id).prime(id, service);
      return service;
    },
    deleteService: async (_, { id }, ctx) => {
      if (!(await ctx.store.deleteService(assertId(id)))) throw notFound('Service', id);
      ctx.loaders.service.clear(id);
      return true;
    },
    addSongToService: async (_, { serviceId, songId, position }, ctx) => {
      const input = validate(rules.link, { position });
      const result = await ctx.store.linkSong(assertId(serviceId, 'serviceId'), assertId(songId, 'songId'), input.position);
      linkOutcome(result, serviceId, songId);
      return freshSetlist(ctx, serviceId);
    },
    removeSongFromService: async (_, { serviceId, songId }, ctx) => {
      const result = await ctx.store.unlinkSong(assertId(serviceId, 'serviceId'), assertId(songId, 'songId'));
      linkOutcome(result, serviceId, songId);
      ctx.loaders.setlist.clear(serviceId);
      return true;
    },
    setServiceSongs: async (_, { serviceId, songIds }, ctx) => {
      validate(rules.setlist, { songIds });
      const result = await ctx.store.replaceSetlist(assertId(serviceId, 'serviceId'), songIds);
      if (result === 'no-song') {
        const known = await ctx.store.songsByIds(songIds);
        const missing = songIds.find((_, i) => known[i] === null)!;
        throw notFound('Song', missing);
      }
      linkOutcome(result, serviceId, 0);
      return freshSetlist(ctx, serviceId);
    },
  },
  Service: {
    songs: async (service, args, ctx, info) =>
      itemsOf(ctx, info, await ctx.loaders.setlistPage(pageOf(args)).load(service.id)),
    // Positions are places 1..n, so a song's place is its index in the whole ordered setlist.
    setlist: async (service, _, ctx) =>
      (await ctx.loaders.setlist.load(service.id)).map((song, i) => ({ position: i + 1, song })),
  },
};
