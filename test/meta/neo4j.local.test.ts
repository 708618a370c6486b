/**
 * `npm run neo4j:local` (scripts/neo4j-local.ts and neo4j-local/Launcher.java): a real Neo4j 5.26
 * on loopback, the three NEO4J_* lines on stdout once it answers, the service's driver logging in
 * with them, a clean stop on SIGTERM that removes the temporary data directory, and
 * NEO4J_LOCAL_HOME kept. Needs Java 17+ and Maven (`.ci/run` installs them); without them it
 * reports itself as skipped, saying why, and only the one-line refusal is checked.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import { localNeo4jMissing, startLocalNeo4j } from '../../scripts/neo4j-local';

const ROOT = path.join(__dirname, '..', '..');
const START_MS = 240_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

async function answers(uri: string, user: string, password: string): Promise<unknown> {
  const driver = neo4j.driver(uri, neo4j.auth.basic(user, password));
  try {
    const { records } = await driver.executeQuery('RETURN 40 + 2 AS answer');
    return records[0].get('answer').toNumber();
  } catch (err) {
    return (err as { code?: string }).code;
  } finally {
    await driver.close();
  }
}

/** Every address the routing table of the default database names, asked without a client address. */
async function routingTable(uri: string, password: string): Promise<string[]> {
  const driver = neo4j.driver(uri, neo4j.auth.basic('neo4j', password));
  try {
    const { records } = await driver.executeQuery("CALL dbms.routing.getRoutingTable({}, 'neo4j') YIELD servers RETURN servers");
    const servers = records[0].get('servers') as { addresses: string[] }[];
    return [...new Set(servers.flatMap((s) => s.addresses))];
  } finally {
    await driver.close();
  }
}

test('without Java it refuses in one line', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-java-'));
  try {
    const run = spawnSync(process.execPath, ['-r', 'tsx/cjs', 'scripts/neo4j-local.ts'], {
      cwd: ROOT,
      env: { ...process.env, PATH: empty },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'neo4j:local: cannot start Neo4j: java is not on PATH (Neo4j 5.26 needs Java 17 or 21: apt-get install openjdk-17-jdk-headless)',
    ]);
    expect(run.status).toBe(1);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
}, 60_000);

const missing = localNeo4jMissing();
if (missing) console.warn(`neo4j:local tests SKIPPED: ${missing}`);

(missing ? describe.skip : describe)('npm run neo4j:local', () => {
  it('prints NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD once Neo4j answers, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, NEO4J_LOCAL_PORT: String(port) };
    delete env.NEO4J_LOCAL_HOME;
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', 'scripts/neo4j-local.ts'], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          if (/NEO4J_PASSWORD=.*\n/.test(stdout)) resolve();
        });
        void exited.then((code) => reject(new Error(`exited ${code} before it was ready:\n${stderr}`)));
      });
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toBe(`NEO4J_URI=bolt://127.0.0.1:${port}`);
      expect(lines[1]).toBe('NEO4J_USER=neo4j');
      expect(lines[2]).toMatch(/^NEO4J_PASSWORD=\S{16,}$/);
      const password = lines[2].slice('NEO4J_PASSWORD='.length);

      expect(await answers(`bolt://127.0.0.1:${port}`, 'neo4j', password)).toBe(42);
      // Auth is on: the password printed is the one that works.
      expect(await answers(`bolt://127.0.0.1:${port}`, 'neo4j', `${password}-wrong`)).toBe('Neo.ClientError.Security.Unauthorized');
      // Routing tables hand out the advertised address: it must be the port really bound.
      expect(await routingTable(`bolt://127.0.0.1:${port}`, password)).toEqual([`127.0.0.1:${port}`]);

      const home = /data in (\S+) \(removed on exit\)/.exec(stderr)?.[1];
      expect(home && fs.existsSync(path.join(home, 'data', 'databases', 'neo4j'))).toBe(true);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(fs.existsSync(home!)).toBe(false);
      expect(await refused(port)).toBe(true);
      expect(stderr).toContain('neo4j-local: stopped');
    } finally {
      child.kill('SIGKILL');
    }
  }, START_MS);

  it('startLocalNeo4j() keeps its data in NEO4J_LOCAL_HOME', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'neo4j-local-home-'));
    try {
      const server = await startLocalNeo4j({ home });
      try {
        expect(server.uri).toMatch(/^bolt:\/\/127\.0\.0\.1:\d+$/);
        const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
        try {
          await driver.executeQuery('CREATE (:Kept {at: $at})', { at: 1 });
        } finally {
          await driver.close();
        }
      } finally {
        await server.stop();
      }
      expect(fs.existsSync(path.join(home, 'data', 'databases', 'neo4j'))).toBe(true);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  }, START_MS);
});
