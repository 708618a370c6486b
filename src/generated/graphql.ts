import type { ServiceDay } from '../domain/dates';
import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { SongRecord, ServiceRecord, SetlistEntryRecord, UserRecord } from '../store/types';
import type { WebhookShown, DeliveryRecord } from '../webhooks/records';
import type { SongUsageRecord } from '../store/analytics-types';
import type { Suggestion } from '../domain/analytics/suggest';
import type { GraphQLContext } from '../graphql/context';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /**
   * An instant as milliseconds since the Unix epoch, a JSON number on output. Input also accepts an
   * ISO-8601 date-time string with `Z` or an explicit offset, or a calendar day alone (`2026-11-29`),
   * which a service takes at its type's usual time (SERVICE_TIMES) in SERVICE_TIME_ZONE. Years 1900-2200.
   */
  Timestamp: { input: number | ServiceDay; output: number; }
};

/** Performances of one artist's songs. */
export type ArtistUsage = {
  __typename?: 'ArtistUsage';
  /** The most common spelling of the artist (ties: the smallest string). */
  artist: Scalars['String']['output'];
  /** The artist's distinct songs performed. */
  songs: Scalars['Int']['output'];
  /** Performances of the artist's songs. */
  timesSung: Scalars['Int']['output'];
};

export type AuthPayload = {
  __typename?: 'AuthPayload';
  /** Seconds until the token expires. */
  expiresIn: Scalars['Int']['output'];
  /** A JWT (HS256) to send as `Authorization: Bearer <token>`. */
  token: Scalars['String']['output'];
  /** Always `Bearer`. */
  tokenType: Scalars['String']['output'];
  user: User;
};

export type DeliveryStatus =
  /** Answered 2xx. */
  | 'DELIVERED'
  /** Every try of the schedule failed. */
  | 'FAILED'
  /** Not delivered yet: tried again at nextAttemptAt. */
  | 'PENDING';

export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Link a song to a service (PERFORMED_IN). Idempotent. Positions are places 1..n without gaps:
   * with `position` p the song is inserted (or moved) there and the songs from p on move down by
   * one; a p past the end puts it last. Without `position` a new link goes last and an existing one
   * keeps its place. Returns the setlist.
   */
  addSongToService: Array<Song>;
  createService: Service;
  /**
   * Create a song (ADMIN only). `artists` defaults to []. `ccliNumber` is 1 to 10 digits and
   * `copyright` at most 500 characters; an empty string, like leaving one out, records none.
   */
  createSong: Song;
  /** Create a user (ADMIN only). `role` defaults to USER. */
  createUser: User;
  /** Make a webhook endpoint (ADMIN only). The answer carries its secret, shown this once. */
  createWebhook: Webhook;
  /** Delete a service and its performance links; the songs stay. True when done. */
  deleteService: Scalars['Boolean']['output'];
  /** Delete a song and its performance links. True when done. */
  deleteSong: Scalars['Boolean']['output'];
  /** Delete a user (ADMIN only). The last ADMIN cannot be deleted. */
  deleteUser: Scalars['Boolean']['output'];
  /** Delete an endpoint and its delivery log (ADMIN only). */
  deleteWebhook: Scalars['Boolean']['output'];
  /** Exchange a username and password for a token. */
  login: AuthPayload;
  /**
   * Merge duplicates into one song (ADMIN only), atomically: the song `keepId` takes the places of
   * the songs `mergeIds` (1 to 50, distinct) in every setlist (a setlist holding it twice keeps the
   * first place), and gains the CCLI number and copyright it lacks and the artists it does not list,
   * from them in their order; they are then deleted. Answers the kept song.
   */
  mergeSongs: Song;
  /** Deliver again (ADMIN only): the event `eventId`, or every event of the endpoint's kinds after `since` (at most 1,000). */
  redeliverWebhook: Redelivery;
  /** Unlink a song from a service; the songs after it move up one place. True when done; NOT_FOUND when it was not linked. */
  removeSongFromService: Scalars['Boolean']['output'];
  /** A new signing secret (ADMIN only), in the answer; the old one also signs for 24 hours. */
  rotateWebhookSecret: Webhook;
  /** Replace the whole setlist, at positions 1..n in the order given. Returns the setlist. */
  setServiceSongs: Array<Song>;
  /** Update a service: fields given replace, fields left out keep their values. */
  updateService: Service;
  /**
   * Update a song: fields given replace, fields left out keep their values. An empty `ccliNumber`
   * or `copyright` removes it.
   */
  updateSong: Song;
  /** Update a user (ADMIN, or the user itself for username and password). Only an ADMIN changes `role`. */
  updateUser: User;
  /** Change an endpoint (ADMIN only): fields given replace, others keep. Enabling clears its failure record. */
  updateWebhook: Webhook;
};


export type MutationAddSongToServiceArgs = {
  position?: InputMaybe<Scalars['Int']['input']>;
  serviceId: Scalars['Int']['input'];
  songId: Scalars['Int']['input'];
};


export type MutationCreateServiceArgs = {
  date: Scalars['Timestamp']['input'];
  serviceType: ServiceType;
};


export type MutationCreateSongArgs = {
  artists?: InputMaybe<Array<Scalars['String']['input']>>;
  ccliNumber?: InputMaybe<Scalars['String']['input']>;
  copyright?: InputMaybe<Scalars['String']['input']>;
  name: Scalars['String']['input'];
};


export type MutationCreateUserArgs = {
  password: Scalars['String']['input'];
  role?: InputMaybe<Role>;
  username: Scalars['String']['input'];
};


export type MutationCreateWebhookArgs = {
  description?: InputMaybe<Scalars['String']['input']>;
  events: Array<Scalars['String']['input']>;
  url: Scalars['String']['input'];
};


export type MutationDeleteServiceArgs = {
  id: Scalars['Int']['input'];
};


export type MutationDeleteSongArgs = {
  id: Scalars['Int']['input'];
};


export type MutationDeleteUserArgs = {
  id: Scalars['Int']['input'];
};


export type MutationDeleteWebhookArgs = {
  id: Scalars['Int']['input'];
};


export type MutationLoginArgs = {
  password: Scalars['String']['input'];
  username: Scalars['String']['input'];
};


export type MutationMergeSongsArgs = {
  keepId: Scalars['Int']['input'];
  mergeIds: Array<Scalars['Int']['input']>;
};


export type MutationRedeliverWebhookArgs = {
  eventId?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['Int']['input'];
  since?: InputMaybe<Scalars['String']['input']>;
};


export type MutationRemoveSongFromServiceArgs = {
  serviceId: Scalars['Int']['input'];
  songId: Scalars['Int']['input'];
};


export type MutationRotateWebhookSecretArgs = {
  id: Scalars['Int']['input'];
};


export type MutationSetServiceSongsArgs = {
  serviceId: Scalars['Int']['input'];
  songIds: Array<Scalars['Int']['input']>;
};


export type MutationUpdateServiceArgs = {
  date?: InputMaybe<Scalars['Timestamp']['input']>;
  id: Scalars['Int']['input'];
  serviceType?: InputMaybe<ServiceType>;
};


export type MutationUpdateSongArgs = {
  artists?: InputMaybe<Array<Scalars['String']['input']>>;
  ccliNumber?: InputMaybe<Scalars['String']['input']>;
  copyright?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['Int']['input'];
  name?: InputMaybe<Scalars['String']['input']>;
};


export type MutationUpdateUserArgs = {
  id: Scalars['Int']['input'];
  password?: InputMaybe<Scalars['String']['input']>;
  role?: InputMaybe<Role>;
  username?: InputMaybe<Scalars['String']['input']>;
};


export type MutationUpdateWebhookArgs = {
  description?: InputMaybe<Scalars['String']['input']>;
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
  events?: InputMaybe<Array<Scalars['String']['input']>>;
  id: Scalars['Int']['input'];
  url?: InputMaybe<Scalars['String']['input']>;
};

/** Where a connection page stands (Relay cursor connections). */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** Cursor of the last item of the page; pass it as `after` for the next page. Null when the page is empty. */
  endCursor: Maybe<Scalars['String']['output']>;
  /** True when more items follow this page. */
  hasNextPage: Scalars['Boolean']['output'];
  /** Always false: connections page forward only. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** Cursor of the first item of the page; null when the page is empty. */
  startCursor: Maybe<Scalars['String']['output']>;
};

export type Query = {
  __typename?: 'Query';
  /** Performances per artist (grouped by the normalised artist; empty names left out), by timesSung descending, then artist. */
  artistUsage: Array<ArtistUsage>;
  /** The authenticated user. */
  me: User;
  /**
   * Songs whose first performance ever falls in the window, newest first: latest first performance
   * first, songs introduced in the same service by id descending. Stats over all time.
   */
  newSongs: Array<SongUsage>;
  /** One service, or null when no service has that id. */
  service: Maybe<Service>;
  /**
   * All services, ordered by date then id (`sort: DATE_DESC` for newest first). `serviceTypes` keeps
   * only services of those types. REST: `GET /services?serviceType=SUN_AM&serviceType=WED&sort=-date`.
   */
  services: Array<Service>;
  /**
   * Services strictly after `date`: epoch ms or an ISO-8601 date-time (an instant), or YYYY-MM-DD
   * (after the end of that day in SERVICE_TIME_ZONE).
   */
  servicesAfter: Array<Service>;
  /** Services strictly before `date` (an instant, or the start of a YYYY-MM-DD day). */
  servicesBefore: Array<Service>;
  /** Services from `from` (instant or start of day) to `to` (instant or end of day), both inclusive. */
  servicesBetween: Array<Service>;
  /**
   * All services as a Relay connection: `first` (1 to 1000, default 20) after the opaque cursor
   * `after`, in `sort` order, optionally only `serviceTypes`. A cursor from another list, order or
   * filter, or not made by this API, is BAD_REQUEST.
   */
  servicesConnection: ServiceConnection;
  /**
   * Services in which the given song was performed, ordered by date then id (`sort: DATE_DESC` for
   * the most recent first). REST: `GET /services/withSong/{songId}?sort=-date`.
   */
  servicesWithSong: Array<Service>;
  /** One song, or null when no song has that id. */
  song: Maybe<Song>;
  /**
   * Usage of every song sung in the window (`from`/`to` inclusive: epoch ms, ISO instant, or
   * YYYY-MM-DD in SERVICE_TIME_ZONE; all time when absent), for the given service types (all when
   * absent). `includeUnsung` adds the songs not sung there.
   */
  songUsage: Array<SongUsage>;
  /**
   * One song's usage: the same as `song(id) { usage(...) rotation }`, for REST's
   * `GET /songs/{songId}/usage`. NOT_FOUND when no song has that id.
   */
  songUsageById: SongUsageOfSong;
  /**
   * All songs, ordered by id, or by `sort`. With `search` (1 to 200 characters): songs whose name or
   * artists contain every word, ignoring case, accents and punctuation, the last word as a prefix;
   * ordered by relevance, then id (`sort` is then not allowed). REST: `GET /songs?q=...&sort=name`.
   */
  songs: Array<Song>;
  /** Songs with an artist equal to the given one, compared trimmed, NFC-normalised and case-insensitively. Ordered by id. */
  songsByArtist: Array<Song>;
  /**
   * All songs as a Relay connection: `first` (1 to 1000, default 20) songs after the opaque cursor
   * `after`, in `sort` order. Cursors are keyset positions (never an offset); one from another list
   * or order, or not made by this API, is BAD_REQUEST.
   */
  songsConnection: SongConnection;
  /** The setlist of a service, in setlist order (position 1 first). */
  songsForService: Array<Song>;
  /**
   * Rotation: songs whose last performance (of the given service types) is before `date`, or that
   * were never sung; never-sung first (by id), then oldest last performance first. Stats over all time.
   */
  songsNotSungSince: Array<SongUsage>;
  /**
   * Overuse at a glance: the last `lastServices` services (1-1000, default 12) of the types, up to
   * `to` (epoch ms, ISO instant, or the end of a YYYY-MM-DD day; the latest service when absent),
   * and the songs sung in more than `moreThanPercent`% of them (0-99, default 50).
   */
  songsSungOften: SungOften;
  /** Songs sung in the same services as `songId`: by together, then jaccard (both descending), then id. `limit` 1-1000, default 20. */
  songsSungWith: Array<SongPairing>;
  /**
   * What to sing at a service (docs/analytics.md, Suggestions): the best `limit` songs (1-1000,
   * default 10) to add beside `chosen` (song ids, at most 50; for an existing service, its setlist
   * when absent), best first, ties by song id. The service is `serviceId`, or one not yet created:
   * `date` (YYYY-MM-DD or an instant, in SERVICE_TIME_ZONE) and `serviceType`. NOT_FOUND when no
   * service has that id; BAD_REQUEST for a chosen id no song has.
   */
  suggestSongs: Array<SongSuggestion>;
  /**
   * Services, performances and distinct songs per calendar bucket, every bucket from the one
   * holding `from` (or the first service) to the one holding `to` (or the last service), empty
   * ones included; the first and last buckets count only what lies inside the window (`partial`).
   * With `songId`, only that song's performances count.
   */
  usageTimeline: Array<UsageBucket>;
  /** One user (ADMIN, or the user itself); null when unknown. */
  user: Maybe<User>;
  /** All users, ordered by id (ADMIN only). */
  users: Array<User>;
  /** One webhook endpoint (ADMIN only); null when unknown. */
  webhook: Maybe<Webhook>;
  /** An endpoint's delivery log, newest event first (ADMIN only). */
  webhookDeliveries: Array<WebhookDelivery>;
  /** Every webhook endpoint, by id (ADMIN only). */
  webhooks: Array<Webhook>;
};


export type QueryArtistUsageArgs = {
  from?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QueryNewSongsArgs = {
  from?: InputMaybe<Scalars['String']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QueryServiceArgs = {
  id: Scalars['Int']['input'];
};


export type QueryServicesArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  sort?: InputMaybe<ServiceSort>;
};


export type QueryServicesAfterArgs = {
  date: Scalars['String']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
};


export type QueryServicesBeforeArgs = {
  date: Scalars['String']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
};


export type QueryServicesBetweenArgs = {
  from: Scalars['String']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  to: Scalars['String']['input'];
};


export type QueryServicesConnectionArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  sort?: InputMaybe<ServiceSort>;
};


export type QueryServicesWithSongArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  songId: Scalars['Int']['input'];
  sort?: InputMaybe<ServiceSort>;
};


export type QuerySongArgs = {
  id: Scalars['Int']['input'];
};


export type QuerySongUsageArgs = {
  from?: InputMaybe<Scalars['String']['input']>;
  includeUnsung?: InputMaybe<Scalars['Boolean']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  sort?: InputMaybe<SongUsageSort>;
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QuerySongUsageByIdArgs = {
  from?: InputMaybe<Scalars['String']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  songId: Scalars['Int']['input'];
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QuerySongsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  search?: InputMaybe<Scalars['String']['input']>;
  sort?: InputMaybe<SongSort>;
};


export type QuerySongsByArtistArgs = {
  artist: Scalars['String']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};


export type QuerySongsConnectionArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  sort?: InputMaybe<SongSort>;
};


export type QuerySongsForServiceArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceId: Scalars['Int']['input'];
};


export type QuerySongsNotSungSinceArgs = {
  date: Scalars['String']['input'];
  serviceTypes?: InputMaybe<Array<ServiceType>>;
};


export type QuerySongsSungOftenArgs = {
  lastServices?: InputMaybe<Scalars['Int']['input']>;
  moreThanPercent?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QuerySongsSungWithArgs = {
  from?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  songId: Scalars['Int']['input'];
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QuerySuggestSongsArgs = {
  chosen?: InputMaybe<Array<Scalars['Int']['input']>>;
  date?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  serviceId?: InputMaybe<Scalars['Int']['input']>;
  serviceType?: InputMaybe<ServiceType>;
};


export type QueryUsageTimelineArgs = {
  bucket: TimelineBucket;
  from?: InputMaybe<Scalars['String']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  songId?: InputMaybe<Scalars['Int']['input']>;
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QueryUserArgs = {
  id: Scalars['Int']['input'];
};


export type QueryUsersArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryWebhookArgs = {
  id: Scalars['Int']['input'];
};


export type QueryWebhookDeliveriesArgs = {
  id: Scalars['Int']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};

export type Redelivery = {
  __typename?: 'Redelivery';
  /** How many deliveries were queued again. */
  queued: Scalars['Int']['output'];
};

export type Role =
  | 'ADMIN'
  | 'USER';

/** Where a song stands in the rotation (docs/analytics.md, Rotation); the first that applies, in this order. */
export type RotationState =
  /** First sung within the horizon, in learningTimes services or more. */
  | 'LEARNING'
  /** Never sung by asOf. */
  | 'NEVER_SUNG'
  /** First sung within the horizon, in fewer than learningTimes services. */
  | 'NEW'
  /** Sung before, not often lately: in the repertoire, out of the regular rotation. */
  | 'RESTING'
  /** Not sung for retiredAfterWeeks weeks. */
  | 'RETIRED'
  /** Sung in stapleTimes services or more within the horizon. */
  | 'STAPLE';

/** One weighted part of a suggestion's score (docs/analytics.md, Suggestions): fit, due, serviceType or new. */
export type ScorePart = {
  __typename?: 'ScorePart';
  name: Scalars['String']['output'];
  /** The part's share of the score: its weight times a value from 0 to 1. */
  value: Scalars['Float']['output'];
};

/** One church service (an occasion). */
export type Service = {
  __typename?: 'Service';
  date: Scalars['Timestamp']['output'];
  id: Scalars['Int']['output'];
  serviceType: ServiceType;
  /** The setlist with each song's place: positions 1..n without gaps, in order. */
  setlist: Array<SetlistEntry>;
  /** The setlist's songs, in setlist order (position 1 first). `limit`/`offset` page each service's setlist separately. */
  songs: Array<Song>;
};


/** One church service (an occasion). */
export type ServiceSongsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};

/** A page of services for cursor paging (Relay connection). */
export type ServiceConnection = {
  __typename?: 'ServiceConnection';
  edges: Array<ServiceEdge>;
  pageInfo: PageInfo;
  /** Services in the whole (filtered) list, not just this page. */
  totalCount: Scalars['Int']['output'];
};

/** One service of a ServiceConnection page and the cursor just after it. */
export type ServiceEdge = {
  __typename?: 'ServiceEdge';
  cursor: Scalars['String']['output'];
  node: Service;
};

/** Orders of the service list: by date, then id, in the same direction. */
export type ServiceSort =
  | 'DATE_ASC'
  | 'DATE_DESC';

/** The kind of church service. */
export type ServiceType =
  /** Sunday morning service */
  | 'SUN_AM'
  /** Sunday evening service */
  | 'SUN_PM'
  /** Wednesday midweek Bible study */
  | 'WED';

/** A song's performances in one service type. */
export type ServiceTypeUsage = {
  __typename?: 'ServiceTypeUsage';
  lastSung: Maybe<Scalars['Timestamp']['output']>;
  serviceType: ServiceType;
  /** Distinct services of this type in which the song was sung. */
  timesSung: Scalars['Int']['output'];
};

/** One place in a setlist. */
export type SetlistEntry = {
  __typename?: 'SetlistEntry';
  /** The song's place in the setlist: 1 for the first song, n for the last, no gaps. */
  position: Scalars['Int']['output'];
  song: Song;
};

/** A worship song. */
export type Song = {
  __typename?: 'Song';
  /** Artists known to have written or performed the song, in the order given. Entries may be empty strings. */
  artists: Array<Scalars['String']['output']>;
  /** The song's CCLI song number (1 to 10 digits), for licensing reports; null when not recorded. */
  ccliNumber: Maybe<Scalars['String']['output']>;
  /** The song's copyright line as licensing reports print it (at most 500 characters); null when not recorded. */
  copyright: Maybe<Scalars['String']['output']>;
  id: Scalars['Int']['output'];
  name: Scalars['String']['output'];
  /**
   * This song's rhythm in the rotation as of `asOf` (epoch ms, ISO instant, or the end of a
   * YYYY-MM-DD day in SERVICE_TIME_ZONE; now when absent), over every service type, looking back
   * `horizonWeeks` (default 52, 1-520). The state's thresholds: `learningTimes` (default 4),
   * `stapleTimes` (default 8), `retiredAfterWeeks` (default 104); docs/analytics.md, Rotation.
   */
  rotation: SongRotation;
  /**
   * Services in which the song was performed, ordered by date then id (`sort: DATE_DESC` for the
   * most recent first). `limit`/`offset` page each song's list separately; `serviceTypes` keeps only
   * services of those types.
   */
  services: Array<Service>;
  /** This song's usage in a window (epoch ms, ISO instant, or YYYY-MM-DD; all time when absent). */
  usage: SongUsage;
};


/** A worship song. */
export type SongRotationArgs = {
  asOf?: InputMaybe<Scalars['String']['input']>;
  horizonWeeks?: InputMaybe<Scalars['Int']['input']>;
  learningTimes?: InputMaybe<Scalars['Int']['input']>;
  retiredAfterWeeks?: InputMaybe<Scalars['Int']['input']>;
  stapleTimes?: InputMaybe<Scalars['Int']['input']>;
};


/** A worship song. */
export type SongServicesArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  sort?: InputMaybe<ServiceSort>;
};


/** A worship song. */
export type SongUsageArgs = {
  from?: InputMaybe<Scalars['String']['input']>;
  serviceTypes?: InputMaybe<Array<ServiceType>>;
  to?: InputMaybe<Scalars['String']['input']>;
};

/** A page of songs for cursor paging (Relay connection). */
export type SongConnection = {
  __typename?: 'SongConnection';
  edges: Array<SongEdge>;
  pageInfo: PageInfo;
  /** Songs in the whole list, not just this page. */
  totalCount: Scalars['Int']['output'];
};

/** One song of a SongConnection page and the cursor just after it. */
export type SongEdge = {
  __typename?: 'SongEdge';
  cursor: Scalars['String']['output'];
  node: Song;
};

/** A song sung in the same services as another. */
export type SongPairing = {
  __typename?: 'SongPairing';
  /** together / (services of either song), counted in the same window. */
  jaccard: Scalars['Float']['output'];
  song: Song;
  /** Services in the window holding both songs. */
  together: Scalars['Int']['output'];
};

/** A song's rhythm: how often it usually comes round, and how long since it last did. */
export type SongRotation = {
  __typename?: 'SongRotation';
  asOf: Scalars['Timestamp']['output'];
  /** Past its usual interval: weeksSinceLastSung > usualIntervalWeeks. */
  due: Scalars['Boolean']['output'];
  horizonWeeks: Scalars['Int']['output'];
  state: RotationState;
  /** Services holding it within the horizon. */
  timesInHorizon: Scalars['Int']['output'];
  /** Median weeks between consecutive services holding it within the horizon; null with fewer than two. */
  usualIntervalWeeks: Maybe<Scalars['Float']['output']>;
  /** Weeks from its last service (by asOf) to asOf; null when never sung by then. */
  weeksSinceLastSung: Maybe<Scalars['Float']['output']>;
};

/** A song's part in a run of recent services (songsSungOften). */
export type SongShare = {
  __typename?: 'SongShare';
  /** The latest service of the run in which it was sung. */
  lastSung: Scalars['Timestamp']['output'];
  /** timesSung / the run's services: from 0 to 1. */
  share: Scalars['Float']['output'];
  song: Song;
  /** Services of the run in which the song was sung. */
  timesSung: Scalars['Int']['output'];
};

/** Orders of the song list. Names compare by Unicode code point; ties (and ID_*) go by id in the same direction. */
export type SongSort =
  | 'ID_ASC'
  | 'ID_DESC'
  | 'NAME_ASC'
  | 'NAME_DESC';

/** A song suggested for a service, with why. */
export type SongSuggestion = {
  __typename?: 'SongSuggestion';
  /** fit, due, serviceType and new, in that order. */
  parts: Array<ScorePart>;
  /** The parts in words, for a worship leader to read. */
  reasons: Array<Scalars['String']['output']>;
  /** The sum of the parts' values: from 0 to 1. */
  score: Scalars['Float']['output'];
  song: Song;
};

/** How often and when a song was sung, within a window and service types. */
export type SongUsage = {
  __typename?: 'SongUsage';
  /** Services the song closed: last in setlist order. */
  asCloser: Scalars['Int']['output'];
  /** Services the song opened: first in setlist order (lowest position, then link order). */
  asOpener: Scalars['Int']['output'];
  /** One entry per service type of the filter (all three when none), in enum order. */
  byServiceType: Array<ServiceTypeUsage>;
  /** The song's CCLI song number (Song.ccliNumber), for filing the licensing report. */
  ccliNumber: Maybe<Scalars['String']['output']>;
  /** The song's copyright line (Song.copyright). */
  copyright: Maybe<Scalars['String']['output']>;
  firstSung: Maybe<Scalars['Timestamp']['output']>;
  lastSung: Maybe<Scalars['Timestamp']['output']>;
  song: Song;
  /** Distinct services in which the song was sung. */
  timesSung: Scalars['Int']['output'];
};

/** One song's usage and its rotation (Song.rotation with its defaults, as of now): REST's GET /songs/{songId}/usage. */
export type SongUsageOfSong = {
  __typename?: 'SongUsageOfSong';
  asCloser: Scalars['Int']['output'];
  asOpener: Scalars['Int']['output'];
  byServiceType: Array<ServiceTypeUsage>;
  ccliNumber: Maybe<Scalars['String']['output']>;
  copyright: Maybe<Scalars['String']['output']>;
  firstSung: Maybe<Scalars['Timestamp']['output']>;
  lastSung: Maybe<Scalars['Timestamp']['output']>;
  rotation: SongRotation;
  song: Song;
  timesSung: Scalars['Int']['output'];
};

/** How the usage report is ordered; ties are always broken by song id ascending. */
export type SongUsageSort =
  /** Most recent last performance first; songs never sung in the window last. */
  | 'LAST_SUNG'
  /** Oldest last performance first; songs never sung in the window first. */
  | 'LEAST_RECENTLY_SUNG'
  /** By name (code-point order). */
  | 'NAME'
  /** Most services first (the default). */
  | 'TIMES_SUNG';

/**
 * Changes as they happen, over WebSocket at `/graphql` (the graphql-transport-ws protocol of
 * `graphql-ws`; docs/API.md, Subscriptions). Each is sent once, to the subscribers connected when
 * the change is made: a client that must not miss one uses a webhook.
 */
export type Subscription = {
  __typename?: 'Subscription';
  /** Every service created or changed, and every service deleted (as it was). */
  serviceChanged: Service;
  /** The service each time its setlist changes (select `setlist` or `songs` for the songs). */
  setlistChanged: Service;
  /** Every song created or changed, deleted (as it was), or merged into (the kept song). */
  songChanged: Song;
};


/**
 * Changes as they happen, over WebSocket at `/graphql` (the graphql-transport-ws protocol of
 * `graphql-ws`; docs/API.md, Subscriptions). Each is sent once, to the subscribers connected when
 * the change is made: a client that must not miss one uses a webhook.
 */
export type SubscriptionSetlistChangedArgs = {
  serviceId: Scalars['Int']['input'];
};

/** The songs sung in more than a share of the most recent services: overuse at a glance. */
export type SungOften = {
  __typename?: 'SungOften';
  /** Date of the run's earliest service; null when the run is empty. */
  firstService: Maybe<Scalars['Timestamp']['output']>;
  /** Date of the run's latest service; null when the run is empty. */
  lastService: Maybe<Scalars['Timestamp']['output']>;
  /** Services in the run: the last `lastServices` of the types up to `to`, or fewer when fewer exist. */
  services: Scalars['Int']['output'];
  /** Songs sung in more than `moreThanPercent`% of the run's services: most often first, then by id. */
  songs: Array<SongShare>;
};

/** Calendar buckets of a timeline, in SERVICE_TIME_ZONE. */
export type TimelineBucket =
  | 'MONTH'
  | 'QUARTER'
  /** ISO weeks, starting on Monday. */
  | 'WEEK'
  | 'YEAR';

/**
 * One calendar bucket of a usage timeline. The window filters first: the first and last buckets
 * count only what lies inside `from`..`to`, so the buckets add up to the window's totals.
 */
export type UsageBucket = {
  __typename?: 'UsageBucket';
  distinctSongs: Scalars['Int']['output'];
  /** True when the window cuts this bucket (the first or last), so it counts only part of its period. */
  partial: Scalars['Boolean']['output'];
  performances: Scalars['Int']['output'];
  services: Scalars['Int']['output'];
  /** The instant the calendar bucket starts (local midnight in SERVICE_TIME_ZONE), even when the window cuts it. */
  start: Scalars['Timestamp']['output'];
};

/** An account. Passwords never leave the server. */
export type User = {
  __typename?: 'User';
  id: Scalars['Int']['output'];
  role: Role;
  username: Scalars['String']['output'];
};

/**
 * A webhook endpoint (ADMIN only): the service POSTs each change event of the kinds in `events` to
 * `url`, signed by the Standard Webhooks specification (docs/API.md, Webhooks).
 */
export type Webhook = {
  __typename?: 'Webhook';
  createdAt: Scalars['Timestamp']['output'];
  description: Maybe<Scalars['String']['output']>;
  /** Why the service disabled it (every delivery failed for three days); null when enabled, or disabled by hand. */
  disabledReason: Maybe<Scalars['String']['output']>;
  enabled: Scalars['Boolean']['output'];
  /** The event kinds it receives: song.created, song.updated, song.deleted, service.created, service.updated, service.deleted, setlist.changed, songs.merged, user.role_changed. */
  events: Array<Scalars['String']['output']>;
  /** Since when every try has failed (none succeeding since); null while deliveries succeed. */
  failingSince: Maybe<Scalars['Timestamp']['output']>;
  id: Scalars['Int']['output'];
  /** The signing secret (`whsec_…`): only in the answers of createWebhook and rotateWebhookSecret, null elsewhere. */
  secret: Maybe<Scalars['String']['output']>;
  url: Scalars['String']['output'];
};

/** One event's delivery to one endpoint. */
export type WebhookDelivery = {
  __typename?: 'WebhookDelivery';
  /** Tries made. */
  attempts: Scalars['Int']['output'];
  /** The event's id, sent as `webhook-id`: a receiver that sees one twice has seen a redelivery. */
  eventId: Scalars['String']['output'];
  eventType: Scalars['String']['output'];
  lastAttemptAt: Maybe<Scalars['Timestamp']['output']>;
  lastError: Maybe<Scalars['String']['output']>;
  /** The HTTP status of the last try's answer; null when there was none (no connection, a timeout, a refused target). */
  lastResponseCode: Maybe<Scalars['Int']['output']>;
  nextAttemptAt: Maybe<Scalars['Timestamp']['output']>;
  status: DeliveryStatus;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = {}, TContext = {}, TArgs = {}> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = {}, TContext = {}, TArgs = {}> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = {}, TContext = {}> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = {}, TContext = {}> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = {}, TParent = {}, TContext = {}, TArgs = {}> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;



/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  ArtistUsage: ResolverTypeWrapper<ArtistUsage>;
  AuthPayload: ResolverTypeWrapper<Omit<AuthPayload, 'user'> & { user: ResolversTypes['User'] }>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  DeliveryStatus: DeliveryStatus;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Mutation: ResolverTypeWrapper<{}>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Query: ResolverTypeWrapper<{}>;
  Redelivery: ResolverTypeWrapper<Redelivery>;
  Role: Role;
  RotationState: RotationState;
  ScorePart: ResolverTypeWrapper<ScorePart>;
  Service: ResolverTypeWrapper<ServiceRecord>;
  ServiceConnection: ResolverTypeWrapper<Omit<ServiceConnection, 'edges'> & { edges: Array<ResolversTypes['ServiceEdge']> }>;
  ServiceEdge: ResolverTypeWrapper<Omit<ServiceEdge, 'node'> & { node: ResolversTypes['Service'] }>;
  ServiceSort: ServiceSort;
  ServiceType: ServiceType;
  ServiceTypeUsage: ResolverTypeWrapper<ServiceTypeUsage>;
  SetlistEntry: ResolverTypeWrapper<SetlistEntryRecord>;
  Song: ResolverTypeWrapper<SongRecord>;
  SongConnection: ResolverTypeWrapper<Omit<SongConnection, 'edges'> & { edges: Array<ResolversTypes['SongEdge']> }>;
  SongEdge: ResolverTypeWrapper<Omit<SongEdge, 'node'> & { node: ResolversTypes['Song'] }>;
  SongPairing: ResolverTypeWrapper<Omit<SongPairing, 'song'> & { song: ResolversTypes['Song'] }>;
  SongRotation: ResolverTypeWrapper<SongRotation>;
  SongShare: ResolverTypeWrapper<Omit<SongShare, 'song'> & { song: ResolversTypes['Song'] }>;
  SongSort: SongSort;
  SongSuggestion: ResolverTypeWrapper<Suggestion>;
  SongUsage: ResolverTypeWrapper<SongUsageRecord>;
  SongUsageOfSong: ResolverTypeWrapper<SongUsageRecord>;
  SongUsageSort: SongUsageSort;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<{}>;
  SungOften: ResolverTypeWrapper<Omit<SungOften, 'songs'> & { songs: Array<ResolversTypes['SongShare']> }>;
  TimelineBucket: TimelineBucket;
  Timestamp: ResolverTypeWrapper<Scalars['Timestamp']['output']>;
  UsageBucket: ResolverTypeWrapper<UsageBucket>;
  User: ResolverTypeWrapper<UserRecord>;
  Webhook: ResolverTypeWrapper<WebhookShown>;
  WebhookDelivery: ResolverTypeWrapper<DeliveryRecord>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  ArtistUsage: ArtistUsage;
  AuthPayload: Omit<AuthPayload, 'user'> & { user: ResolversParentTypes['User'] };
  Boolean: Scalars['Boolean']['output'];
  Float: Scalars['Float']['output'];
  Int: Scalars['Int']['output'];
  Mutation: {};
  PageInfo: PageInfo;
  Query: {};
  Redelivery: Redelivery;
  ScorePart: ScorePart;
  Service: ServiceRecord;
  ServiceConnection: Omit<ServiceConnection, 'edges'> & { edges: Array<ResolversParentTypes['ServiceEdge']> };
  ServiceEdge: Omit<ServiceEdge, 'node'> & { node: ResolversParentTypes['Service'] };
  ServiceTypeUsage: ServiceTypeUsage;
  SetlistEntry: SetlistEntryRecord;
  Song: SongRecord;
  SongConnection: Omit<SongConnection, 'edges'> & { edges: Array<ResolversParentTypes['SongEdge']> };
  SongEdge: Omit<SongEdge, 'node'> & { node: ResolversParentTypes['Song'] };
  SongPairing: Omit<SongPairing, 'song'> & { song: ResolversParentTypes['Song'] };
  SongRotation: SongRotation;
  SongShare: Omit<SongShare, 'song'> & { song: ResolversParentTypes['Song'] };
  SongSuggestion: Suggestion;
  SongUsage: SongUsageRecord;
  SongUsageOfSong: SongUsageRecord;
  String: Scalars['String']['output'];
  Subscription: {};
  SungOften: Omit<SungOften, 'songs'> & { songs: Array<ResolversParentTypes['SongShare']> };
  Timestamp: Scalars['Timestamp']['output'];
  UsageBucket: UsageBucket;
  User: UserRecord;
  Webhook: WebhookShown;
  WebhookDelivery: DeliveryRecord;
};

export type ArtistUsageResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ArtistUsage'] = ResolversParentTypes['ArtistUsage']> = {
  artist?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  songs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  timesSung?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type AuthPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AuthPayload'] = ResolversParentTypes['AuthPayload']> = {
  expiresIn?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  token?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  tokenType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  user?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  addSongToService?: Resolver<Array<ResolversTypes['Song']>, ParentType, ContextType, RequireFields<MutationAddSongToServiceArgs, 'serviceId' | 'songId'>>;
  createService?: Resolver<ResolversTypes['Service'], ParentType, ContextType, RequireFields<MutationCreateServiceArgs, 'date' | 'serviceType'>>;
  createSong?: Resolver<ResolversTypes['Song'], ParentType, ContextType, RequireFields<MutationCreateSongArgs, 'name'>>;
  createUser?: Resolver<ResolversTypes['User'], ParentType, ContextType, RequireFields<MutationCreateUserArgs, 'password' | 'username'>>;
  createWebhook?: Resolver<ResolversTypes['Webhook'], ParentType, ContextType, RequireFields<MutationCreateWebhookArgs, 'events' | 'url'>>;
  deleteService?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationDeleteServiceArgs, 'id'>>;
  deleteSong?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationDeleteSongArgs, 'id'>>;
  deleteUser?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationDeleteUserArgs, 'id'>>;
  deleteWebhook?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationDeleteWebhookArgs, 'id'>>;
  login?: Resolver<ResolversTypes['AuthPayload'], ParentType, ContextType, RequireFields<MutationLoginArgs, 'password' | 'username'>>;
  mergeSongs?: Resolver<ResolversTypes['Song'], ParentType, ContextType, RequireFields<MutationMergeSongsArgs, 'keepId' | 'mergeIds'>>;
  redeliverWebhook?: Resolver<ResolversTypes['Redelivery'], ParentType, ContextType, RequireFields<MutationRedeliverWebhookArgs, 'id'>>;
  removeSongFromService?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationRemoveSongFromServiceArgs, 'serviceId' | 'songId'>>;
  rotateWebhookSecret?: Resolver<ResolversTypes['Webhook'], ParentType, ContextType, RequireFields<MutationRotateWebhookSecretArgs, 'id'>>;
  setServiceSongs?: Resolver<Array<ResolversTypes['Song']>, ParentType, ContextType, RequireFields<MutationSetServiceSongsArgs, 'serviceId' | 'songIds'>>;
  updateService?: Resolver<ResolversTypes['Service'], ParentType, ContextType, RequireFields<MutationUpdateServiceArgs, 'id'>>;
  updateSong?: Resolver<ResolversTypes['Song'], ParentType, ContextType, RequireFields<MutationUpdateSongArgs, 'id'>>;
  updateUser?: Resolver<ResolversTypes['User'], ParentType, ContextType, RequireFields<MutationUpdateUserArgs, 'id'>>;
  updateWebhook?: Resolver<ResolversTypes['Webhook'], ParentType, ContextType, RequireFields<MutationUpdateWebhookArgs, 'id'>>;
};

export type PageInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = {
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  artistUsage?: Resolver<Array<ResolversTypes['ArtistUsage']>, ParentType, ContextType, Partial<QueryArtistUsageArgs>>;
  me?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
  newSongs?: Resolver<Array<ResolversTypes['SongUsage']>, ParentType, ContextType, Partial<QueryNewSongsArgs>>;
  service?: Resolver<Maybe<ResolversTypes['Service']>, ParentType, ContextType, RequireFields<QueryServiceArgs, 'id'>>;
  services?: Resolver<Array<ResolversTypes['Service']>, ParentType, ContextType, Partial<QueryServicesArgs>>;
  servicesAfter?: Resolver<Array<ResolversTypes['Service']>, ParentType, ContextType, RequireFields<QueryServicesAfterArgs, 'date'>>;
  servicesBefore?: Resolver<Array<ResolversTypes['Service']>, ParentType, ContextType, RequireFields<QueryServicesBeforeArgs, 'date'>>;
  servicesBetween?: Resolver<Array<ResolversTypes['Service']>, ParentType, ContextType, RequireFields<QueryServicesBetweenArgs, 'from' | 'to'>>;
  servicesConnection?: Resolver<ResolversTypes['ServiceConnection'], ParentType, ContextType, Partial<QueryServicesConnectionArgs>>;
  servicesWithSong?: Resolver<Array<ResolversTypes['Service']>, ParentType, ContextType, RequireFields<QueryServicesWithSongArgs, 'songId'>>;
  song?: Resolver<Maybe<ResolversTypes['Song']>, ParentType, ContextType, RequireFields<QuerySongArgs, 'id'>>;
  songUsage?: Resolver<Array<ResolversTypes['SongUsage']>, ParentType, ContextType, Partial<QuerySongUsageArgs>>;
  songUsageById?: Resolver<ResolversTypes['SongUsageOfSong'], ParentType, ContextType, RequireFields<QuerySongUsageByIdArgs, 'songId'>>;
  songs?: Resolver<Array<ResolversTypes['Song']>, ParentType, ContextType, Partial<QuerySongsArgs>>;
  songsByArtist?: Resolver<Array<ResolversTypes['Song']>, ParentType, ContextType, RequireFields<QuerySongsByArtistArgs, 'artist'>>;
  songsConnection?: Resolver<ResolversTypes['SongConnection'], ParentType, ContextType, Partial<QuerySongsConnectionArgs>>;
  songsForService?: Resolver<Array<ResolversTypes['Song']>, ParentType, ContextType, RequireFields<QuerySongsForServiceArgs, 'serviceId'>>;
  songsNotSungSince?: Resolver<Array<ResolversTypes['SongUsage']>, ParentType, ContextType, RequireFields<QuerySongsNotSungSinceArgs, 'date'>>;
  songsSungOften?: Resolver<ResolversTypes['SungOften'], ParentType, ContextType, Partial<QuerySongsSungOftenArgs>>;
  songsSungWith?: Resolver<Array<ResolversTypes['SongPairing']>, ParentType, ContextType, RequireFields<QuerySongsSungWithArgs, 'songId'>>;
  suggestSongs?: Resolver<Array<ResolversTypes['SongSuggestion']>, ParentType, ContextType, Partial<QuerySuggestSongsArgs>>;
  usageTimeline?: Resolver<Array<ResolversTypes['UsageBucket']>, ParentType, ContextType, RequireFields<QueryUsageTimelineArgs, 'bucket'>>;
  user?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType, RequireFields<QueryUserArgs, 'id'>>;
  users?: Resolver<Array<ResolversTypes['User']>, ParentType, ContextType, Partial<QueryUsersArgs>>;
  webhook?: Resolver<Maybe<ResolversTypes['Webhook']>, ParentType, ContextType, RequireFields<QueryWebhookArgs, 'id'>>;
  webhookDeliveries?: Resolver<Array<ResolversTypes['WebhookDelivery']>, ParentType, ContextType, RequireFields<QueryWebhookDeliveriesArgs, 'id'>>;
  webhooks?: Resolver<Array<ResolversTypes['Webhook']>, ParentType, ContextType>;
};

export type RedeliveryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Redelivery'] = ResolversParentTypes['Redelivery']> = {
  queued?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ScorePartResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ScorePart'] = ResolversParentTypes['ScorePart']> = {
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ServiceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Service'] = ResolversParentTypes['Service']> = {
  date?: Resolver<ResolversTypes['Timestamp'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  serviceType?: Resolver<ResolversTypes['ServiceType'], ParentType, ContextType>;
  setlist?: Resolver<Array<ResolversTypes['SetlistEntry']>, ParentType, ContextType>;
  songs?: Resolver<Array<ResolversTypes['Song']>, ParentType, ContextType, Partial<ServiceSongsArgs>>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ServiceConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ServiceConnection'] = ResolversParentTypes['ServiceConnection']> = {
  edges?: Resolver<Array<ResolversTypes['ServiceEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ServiceEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ServiceEdge'] = ResolversParentTypes['ServiceEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Service'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ServiceTypeUsageResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ServiceTypeUsage'] = ResolversParentTypes['ServiceTypeUsage']> = {
  lastSung?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  serviceType?: Resolver<ResolversTypes['ServiceType'], ParentType, ContextType>;
  timesSung?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SetlistEntryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SetlistEntry'] = ResolversParentTypes['SetlistEntry']> = {
  position?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  song?: Resolver<ResolversTypes['Song'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Song'] = ResolversParentTypes['Song']> = {
  artists?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  ccliNumber?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  copyright?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  rotation?: Resolver<ResolversTypes['SongRotation'], ParentType, ContextType, Partial<SongRotationArgs>>;
  services?: Resolver<Array<ResolversTypes['Service']>, ParentType, ContextType, Partial<SongServicesArgs>>;
  usage?: Resolver<ResolversTypes['SongUsage'], ParentType, ContextType, Partial<SongUsageArgs>>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongConnection'] = ResolversParentTypes['SongConnection']> = {
  edges?: Resolver<Array<ResolversTypes['SongEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongEdge'] = ResolversParentTypes['SongEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Song'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongPairingResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongPairing'] = ResolversParentTypes['SongPairing']> = {
  jaccard?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  song?: Resolver<ResolversTypes['Song'], ParentType, ContextType>;
  together?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongRotationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongRotation'] = ResolversParentTypes['SongRotation']> = {
  asOf?: Resolver<ResolversTypes['Timestamp'], ParentType, ContextType>;
  due?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  horizonWeeks?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  state?: Resolver<ResolversTypes['RotationState'], ParentType, ContextType>;
  timesInHorizon?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  usualIntervalWeeks?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  weeksSinceLastSung?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongShareResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongShare'] = ResolversParentTypes['SongShare']> = {
  lastSung?: Resolver<ResolversTypes['Timestamp'], ParentType, ContextType>;
  share?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  song?: Resolver<ResolversTypes['Song'], ParentType, ContextType>;
  timesSung?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongSuggestionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongSuggestion'] = ResolversParentTypes['SongSuggestion']> = {
  parts?: Resolver<Array<ResolversTypes['ScorePart']>, ParentType, ContextType>;
  reasons?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  score?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  song?: Resolver<ResolversTypes['Song'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongUsageResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongUsage'] = ResolversParentTypes['SongUsage']> = {
  asCloser?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  asOpener?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  byServiceType?: Resolver<Array<ResolversTypes['ServiceTypeUsage']>, ParentType, ContextType>;
  ccliNumber?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  copyright?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  firstSung?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  lastSung?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  song?: Resolver<ResolversTypes['Song'], ParentType, ContextType>;
  timesSung?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SongUsageOfSongResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SongUsageOfSong'] = ResolversParentTypes['SongUsageOfSong']> = {
  asCloser?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  asOpener?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  byServiceType?: Resolver<Array<ResolversTypes['ServiceTypeUsage']>, ParentType, ContextType>;
  ccliNumber?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  copyright?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  firstSung?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  lastSung?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  rotation?: Resolver<ResolversTypes['SongRotation'], ParentType, ContextType>;
  song?: Resolver<ResolversTypes['Song'], ParentType, ContextType>;
  timesSung?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  serviceChanged?: SubscriptionResolver<ResolversTypes['Service'], "serviceChanged", ParentType, ContextType>;
  setlistChanged?: SubscriptionResolver<ResolversTypes['Service'], "setlistChanged", ParentType, ContextType, RequireFields<SubscriptionSetlistChangedArgs, 'serviceId'>>;
  songChanged?: SubscriptionResolver<ResolversTypes['Song'], "songChanged", ParentType, ContextType>;
};

export type SungOftenResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SungOften'] = ResolversParentTypes['SungOften']> = {
  firstService?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  lastService?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  services?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  songs?: Resolver<Array<ResolversTypes['SongShare']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export interface TimestampScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Timestamp'], any> {
  name: 'Timestamp';
}

export type UsageBucketResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UsageBucket'] = ResolversParentTypes['UsageBucket']> = {
  distinctSongs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  partial?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  performances?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  services?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  start?: Resolver<ResolversTypes['Timestamp'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type UserResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['User'] = ResolversParentTypes['User']> = {
  id?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  role?: Resolver<ResolversTypes['Role'], ParentType, ContextType>;
  username?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type WebhookResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Webhook'] = ResolversParentTypes['Webhook']> = {
  createdAt?: Resolver<ResolversTypes['Timestamp'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  disabledReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  events?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  failingSince?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  secret?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type WebhookDeliveryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookDelivery'] = ResolversParentTypes['WebhookDelivery']> = {
  attempts?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  eventId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  eventType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  lastAttemptAt?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  lastError?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lastResponseCode?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  nextAttemptAt?: Resolver<Maybe<ResolversTypes['Timestamp']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['DeliveryStatus'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  ArtistUsage?: ArtistUsageResolvers<ContextType>;
  AuthPayload?: AuthPayloadResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  Redelivery?: RedeliveryResolvers<ContextType>;
  ScorePart?: ScorePartResolvers<ContextType>;
  Service?: ServiceResolvers<ContextType>;
  ServiceConnection?: ServiceConnectionResolvers<ContextType>;
  ServiceEdge?: ServiceEdgeResolvers<ContextType>;
  ServiceTypeUsage?: ServiceTypeUsageResolvers<ContextType>;
  SetlistEntry?: SetlistEntryResolvers<ContextType>;
  Song?: SongResolvers<ContextType>;
  SongConnection?: SongConnectionResolvers<ContextType>;
  SongEdge?: SongEdgeResolvers<ContextType>;
  SongPairing?: SongPairingResolvers<ContextType>;
  SongRotation?: SongRotationResolvers<ContextType>;
  SongShare?: SongShareResolvers<ContextType>;
  SongSuggestion?: SongSuggestionResolvers<ContextType>;
  SongUsage?: SongUsageResolvers<ContextType>;
  SongUsageOfSong?: SongUsageOfSongResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  SungOften?: SungOftenResolvers<ContextType>;
  Timestamp?: GraphQLScalarType;
  UsageBucket?: UsageBucketResolvers<ContextType>;
  User?: UserResolvers<ContextType>;
  Webhook?: WebhookResolvers<ContextType>;
  WebhookDelivery?: WebhookDeliveryResolvers<ContextType>;
};

