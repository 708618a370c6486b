import type { Resolvers } from '../../generated/graphql';
import { Timestamp } from '../scalars';
import { analyticsResolvers } from './analytics';
import { serviceResolvers } from './services';
import { songResolvers } from './songs';
import { suggestionResolvers } from './suggestions';
import { userResolvers } from './users';
import { webhookResolvers } from './webhooks';
import { subscriptionResolvers } from './subscriptions';

export const resolvers: Resolvers[] = [{ Timestamp }, songResolvers, serviceResolvers, userResolvers, analyticsResolvers, suggestionResolvers, webhookResolvers, subscriptionResolvers];
