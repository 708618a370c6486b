import express, { type Request, type Response } from 'express';
import type { TokenService } from '../src/auth/tokens';
import { Credentials } from '../src/auth/credentials';
import { Viewer } from '../src/auth/viewer';
import { betweenRange, parseBound } from '../src/domain/dates';
import { rules, validate } from '../src/domain/validation';
import type { Store } from '../src/store/types';

/**
 * The comparator: what a hand-written Express endpoint would do for each benchmarked route, with
 * no GraphQL, SOFA, graphql-shield, Apollo, helmet or cors in between. Each route calls the same
 * Store methods on the same store instance as the facade does for that request, applies the same
 * domain rules the resolvers apply (date parsing, token check, input validation), and writes the
 * same JSON (the benchmark checks that before measuring). Only mounted by bench/server.ts.
 */
export function createBareApp(store: Store, tokens: TokenService, serviceTimeZone: string): express.Express {
  const app = express();
  // As the real app: no ETag hashing of every body.
  app.set('etag', false);
  app.disable('x-powered-by');

  // 1. GET /api/v1/songs/:id -> Query.song -> DataLoader -> songsByIds([id])
  app.get('/bare/songs/:id', async (req: Request, res: Response) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || id < 1) {
      res.status(400).json({ error: { code: 'BAD_REQUEST', message: 'id must be a positive integer' } });
      return;
    }
    const [song] = await store.songsByIds([id]);
    if (!song) {
      res.status(404).json({ error: { code: 'NOT_FOUND', message: `Song ${id} does not exist` } });
      return;
    }
    res.json(song);
  });

  // 2. GET /api/v1/songs -> Query.songs -> listSongs()
  app.get('/bare/songs', async (_req: Request, res: Response) => {
    const songs = await store.listSongs({}, {});
    res.set('X-Total-Count', String(songs.totalCount)).json(songs.items);
  });

  // 3. GET /api/v1/services/byDate/between/:from/:to -> Query.servicesBetween -> servicesInRange()
  app.get('/bare/services/byDate/between/:from/:to', async (req: Request, res: Response) => {
    let range;
    try {
      range = betweenRange(
        parseBound(String(req.params.from), serviceTimeZone),
        parseBound(String(req.params.to), serviceTimeZone),
      );
    } catch (err) {
      res.status(400).json({ error: { code: 'BAD_REQUEST', message: (err as Error).message } });
      return;
    }
    const services = await store.servicesInRange(range, {}, {});
    res.set('X-Total-Count', String(services.totalCount)).json(services.items);
  });

  // 4. POST /graphql { services { id date serviceType songs { id name artists } } }
  //    -> listServices() + one batched setlistsForServices(all ids), as the DataLoader does.
  app.post('/bare/graphql/services', express.json(), async (_req: Request, res: Response) => {
    const services = (await store.listServices({}, {})).items;
    const setlists = (await store.setlistsForServices(services.map((s) => s.id))).map((p) => p.items);
    res.json({
      data: {
        services: services.map((s, i) => ({ id: s.id, date: s.date, serviceType: s.serviceType, songs: setlists[i] })),
      },
    });
  });

  // 5. POST /api/v1/songs as ADMIN -> token check (credentialsById), validation, createSong()
  app.post('/bare/songs', express.json(), async (req: Request, res: Response) => {
    const user = await new Viewer(new Credentials(req.headers.authorization, tokens), store).user();
    if (!user) {
      res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: { code: 'UNAUTHENTICATED', message: 'Authentication required' } });
      return;
    }
    if (user.role !== 'ADMIN') {
      res.status(403).json({ error: { code: 'FORBIDDEN', message: 'This needs an ADMIN account' } });
      return;
    }
    let input;
    try {
      input = validate(rules.createSong, (req.body ?? {}) as Record<string, unknown>);
    } catch (err) {
      res.status(400).json({ error: { code: 'VALIDATION_FAILED', message: (err as Error).message } });
      return;
    }
    const song = await store.createSong({ name: input.name, artists: input.artists ?? [] });
    res.status(201).location(`/api/v1/songs/${song.id}`).json(song);
  });

  return app;
}
