import { startTestServer, tempDbPath, type TestServer } from './server';
import { seedTestStore } from './test-store';

/**
 * A test server on the demo data (`npm run seed` into a new store of the run's kind), with `env`
 * for both the seed and the server (SERVICE_TIME_ZONE, say).
 */
export async function startDemoServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dbPath = tempDbPath();
  await seedTestStore(dbPath, env);
  return startTestServer({ SQLITE_PATH: dbPath, ...env });
}
