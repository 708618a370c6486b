import type { Resolvers } from '../../generated/graphql';
import { Timestamp } from '../scalars';
import { analyticsResolvers } from './analytics';
import { serviceResolvers } from './services';
import { songResolvers } from './songs';
import { suggestionResolvers } from './suggestions';
import { userResolvers } from './users';
import { webhookResolvers } from './webhooks';

export const resolvers: Resolvers[] = [{ Timestamp }, songResolvers, serviceResolvers, userResolvers, analyticsResolvers, suggestionResolvers, webhookResolvers];
