import { assertId, MAX_PAGE, rules, validate } from '../../domain/validation';
import type { EventKind } from '../../events/changes';
import { notFound, validationFailed } from '../../errors';
import type { Resolvers } from '../../generated/graphql';
import { newSecret } from '../../webhooks/signing';
import { checkTarget, TargetRefused, type TargetPolicy } from '../../webhooks/targets';
import { itemsOf, pageOf } from './paging';

/** How long a rotated secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** The most deliveries one redelivery queues. */
export const REDELIVER_MAX = 1000;

/** A URL that is no safe target is the request's mistake: a 400 naming the field. */
async function checkedUrl(url: string, policy: TargetPolicy): Promise<string> {
  try {
    await checkTarget(url, policy);
    return url;
  } catch (err) {
    if (err instanceof TargetRefused) throw validationFailed([{ field: 'url', message: err.message }]);
    throw err;
  }
}

export const webhookResolvers: Resolvers = {
  Query: {
    webhooks: (_, __, ctx) => ctx.store.listWebhooks(),
    webhook: (_, { id }, ctx) => ctx.store.webhookById(assertId(id)),
    webhookDeliveries: async (_, { id, ...page }, ctx, info) => {
      const { limit = MAX_PAGE, offset = 0 } = pageOf(page);
      if (!(await ctx.store.webhookById(assertId(id)))) throw notFound('Webhook', id);
      return itemsOf(ctx, info, await ctx.store.deliveriesOf(id, limit, offset));
    },
  },
  // Only the answers that made it carry it (createWebhook, rotateWebhookSecret).
  Webhook: { secret: (w) => w.secret ?? null },
  Mutation: {
    createWebhook: async (_, args, ctx) => {
      const input = validate(rules.createWebhook, args);
      const url = await checkedUrl(input.url, ctx.webhookTargets);
      const secret = newSecret();
      const events = input.events as EventKind[];
      const made = await ctx.store.createWebhook({ url, events, description: input.description ?? null, secret }, Date.now());
      return { ...made, secret };
    },
    updateWebhook: async (_, { id, enabled, ...fields }, ctx) => {
      assertId(id);
      const input = validate(rules.updateWebhook, fields);
      if (enabled === null) throw validationFailed([{ field: 'enabled', message: 'must not be null' }]);
      if (!(await ctx.store.webhookById(id))) throw notFound('Webhook', id);
      const url = input.url === undefined ? undefined : await checkedUrl(input.url, ctx.webhookTargets);
      const changed = await ctx.store.updateWebhook(id, { url, events: input.events as EventKind[] | undefined, description: input.description, enabled }, Date.now());
      if (!changed) throw notFound('Webhook', id);
      return changed;
    },
    deleteWebhook: async (_, { id }, ctx) => {
      if (!(await ctx.store.deleteWebhook(assertId(id)))) throw notFound('Webhook', id);
      return true;
    },
    rotateWebhookSecret: async (_, { id }, ctx) => {
      const secret = newSecret();
      const rotated = await ctx.store.rotateWebhookSecret(assertId(id), secret, Date.now() + ROTATION_OVERLAP_MS);
      if (!rotated) throw notFound('Webhook', id);
      return { ...rotated, secret };
    },
    redeliverWebhook: async (_, { id, ...what }, ctx) => {
      assertId(id);
      const input = validate(rules.redeliverWebhook, what);
      const asked = input.eventId !== undefined ? { eventId: input.eventId } : { since: input.since! };
      const queued = await ctx.store.redeliver(id, asked, Date.now(), REDELIVER_MAX);
      if (queued === null) throw notFound('Webhook', id);
      return { queued };
    },
  },
};
