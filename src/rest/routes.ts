/**
 * The REST API v1 (docs/API.md) as a table over the GraphQL root fields. SOFA builds each
 * route's operation from the field; this table only says where the field lives on the REST wire.
 * Path parameter names are the field's argument names, which is how SOFA fills them in.
 * More specific paths come first (`/users/me` before `/users/:id`).
 */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** `Query.songs`, `Mutation.createSong`, ... */
  field: string;
  /** 201 for creates (with a Location header), 204 for deletes (no body); 200 otherwise. */
  status?: 201 | 204;
  /** For single-record reads: a null answer is a 404 for this kind of record. */
  record?: 'Song' | 'Service' | 'User';
  /** Also answers CSV (Accept: text/csv or format=csv), written by this writer (src/rest/csv.ts). */
  csv?: 'songUsage';
}

export const ROUTES: readonly RestRoute[] = [
  { method: 'GET', path: '/songs', field: 'Query.songs' },
  { method: 'POST', path: '/songs', field: 'Mutation.createSong', status: 201 },
  { method: 'GET', path: '/songs/forService/:serviceId', field: 'Query.songsForService' },
  { method: 'GET', path: '/songs/byArtist/:artist', field: 'Query.songsByArtist' },
  { method: 'GET', path: '/songs/notSungSince/:date', field: 'Query.songsNotSungSince' },
  { method: 'GET', path: '/songs/:songId/usage', field: 'Query.songUsageById' },
  { method: 'GET', path: '/songs/:songId/sungWith', field: 'Query.songsSungWith' },
  { method: 'GET', path: '/songs/:id', field: 'Query.song', record: 'Song' },
  { method: 'PUT', path: '/songs/:id', field: 'Mutation.updateSong' },
  { method: 'DELETE', path: '/songs/:id', field: 'Mutation.deleteSong', status: 204 },

  { method: 'GET', path: '/services', field: 'Query.services' },
  { method: 'POST', path: '/services', field: 'Mutation.createService', status: 201 },
  { method: 'GET', path: '/services/withSong/:songId', field: 'Query.servicesWithSong' },
  { method: 'GET', path: '/services/byDate/after/:date', field: 'Query.servicesAfter' },
  { method: 'GET', path: '/services/byDate/before/:date', field: 'Query.servicesBefore' },
  { method: 'GET', path: '/services/byDate/between/:from/:to', field: 'Query.servicesBetween' },
  { method: 'GET', path: '/services/:id', field: 'Query.service', record: 'Service' },
  { method: 'PUT', path: '/services/:id', field: 'Mutation.updateService' },
  { method: 'DELETE', path: '/services/:id', field: 'Mutation.deleteService', status: 204 },
  { method: 'PUT', path: '/services/:serviceId/songs', field: 'Mutation.setServiceSongs' },
  { method: 'PUT', path: '/services/:serviceId/songs/:songId', field: 'Mutation.addSongToService' },
  { method: 'DELETE', path: '/services/:serviceId/songs/:songId', field: 'Mutation.removeSongFromService', status: 204 },

  // Analytics (docs/API.md, Reports and analytics). The usage report also answers CSV.
  { method: 'GET', path: '/reports/songUsage', field: 'Query.songUsage', csv: 'songUsage' },
  { method: 'GET', path: '/reports/newSongs', field: 'Query.newSongs' },
  { method: 'GET', path: '/reports/timeline', field: 'Query.usageTimeline' },
  { method: 'GET', path: '/reports/artists', field: 'Query.artistUsage' },
  { method: 'GET', path: '/reports/sungOften', field: 'Query.songsSungOften' },

  { method: 'POST', path: '/users/login', field: 'Mutation.login' },
  { method: 'GET', path: '/users/me', field: 'Query.me' },
  { method: 'GET', path: '/users', field: 'Query.users' },
  { method: 'POST', path: '/users', field: 'Mutation.createUser', status: 201 },
  { method: 'GET', path: '/users/:id', field: 'Query.user', record: 'User' },
  { method: 'PUT', path: '/users/:id', field: 'Mutation.updateUser' },
  { method: 'DELETE', path: '/users/:id', field: 'Mutation.deleteUser', status: 204 },
];

/**
 * Relation fields are GraphQL-only: REST records are exactly the flat shapes of docs/API.md.
 * SOFA is given a view of the schema without them, so its operations never select them.
 */
export const GRAPHQL_ONLY_FIELDS = [
  // The v1 song record is exactly {id, name, artists}; REST reads the licensing details in the
  // usage report's rows (SongUsage.ccliNumber, SongUsage.copyright) and writes them in song bodies.
  'Song.ccliNumber',
  'Song.copyright',
  'Song.services',
  'Song.usage',
  'Service.songs',
  'Service.setlist',
  // Cursor connections serve GraphQL front ends; REST pages with limit/offset.
  'Query.songsConnection',
  'Query.servicesConnection',
] as const;

/** Path parameters as written in a route (`:id`). */
export const pathParams = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
