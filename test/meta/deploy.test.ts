import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, ENV_NAMES, FILE_SECRETS, loadConfig } from '../../src/config';
import { GENERATED_SCRIPTS } from '../../src/insights';
import { lintDockerfile, parseDockerfile } from '../helpers/dockerfile-lint';

/**
 * The container and its configuration, checked statically: there is no Docker here, so
 * nothing is built or run. The Dockerfile is checked against the common hadolint rules by
 * test/helpers/dockerfile-lint.ts (a re-implementation, not hadolint itself).
 */

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('passes the hadolint-style checks', () => {
    expect(lintDockerfile(dockerfile)).toEqual([]);
  });

  it('the checker finds each rule it claims to check', () => {
    const bad = [
      'FROM node AS one',
      'MAINTAINER someone',
      'WORKDIR app',
      'RUN apt-get update && apt install curl',
      'RUN apt-get install python3',
      'RUN cd /tmp && sudo make',
      'RUN curl -s x | sh && wget y',
      'ADD src /app/src',
      'COPY --from=nowhere /x /x',
      'FROM node:latest AS one',
      'COPY a b',
      'CMD node main.js',
      'CMD ["node"]',
    ].join('\n');
    const rules = [...new Set(lintDockerfile(bad).map((f) => f.rule))].sort();
    expect(rules).toEqual(
      ['DL3000', 'DL3002', 'DL3003', 'DL3004', 'DL3006', 'DL3007', 'DL3008', 'DL3009', 'DL3014', 'DL3015', 'DL3020', 'DL3022', 'DL3024', 'DL3025', 'DL3027', 'DL3045', 'DL3057', 'DL4000', 'DL4001', 'DL4003', 'DL4006'].sort(),
    );
  });

  it('builds on a supported Node LTS pinned to a minor version, which engines allows', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)\.(\d+)[-\w.]*$/m.exec(dockerfile);
    expect(image).not.toBeNull();
    expect(['22', '24']).toContain(image![1]);
    const engines: string = JSON.parse(read('package.json')).engines.node;
    // This machine runs Node 20, so engines must keep allowing it; and the image's major.
    for (const major of ['20', image![1]]) expect(engines).toMatch(new RegExp(`(^|\\|\\|\\s*)[\\^>=~]*${major}\\b|>=\\s*20`));
  });

  it('compiles better-sqlite3 once, caches npm, and keeps the data in a volume', () => {
    const runs = parseDockerfile(dockerfile).filter((i) => i.keyword === 'RUN');
    expect(runs.filter((r) => /\bnpm ci\b/.test(r.args))).toHaveLength(1);
    expect(dockerfile).toMatch(/RUN --mount=type=cache,target=\/root\/\.npm\s*\\?\s*npm ci/);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(dockerfile).toMatch(/^VOLUME \/app\/data$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('copies into the runtime image every file the service reads beside dist/', () => {
    // The runtime stage's copies from the build context (not --from another stage): its sources.
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const sources = [...runtime.matchAll(/^COPY (?:--chown=\S+ )?(?!--from)(\S+) \S+$/gm)].map((m) => m[1].replace(/\/$/, ''));
    const covered = (file: string) => sources.some((src) => file === src || file.startsWith(`${src}/`));
    const read = ['schema/song.graphql', 'public/insights/index.html', 'public/plan/index.html', ...GENERATED_SCRIPTS.map(([, f]) => `src/generated/${f}`)];
    expect(read.filter((f) => !covered(f))).toEqual([]);
    for (const f of read) expect(fs.existsSync(path.join(ROOT, f))).toBe(true);
  });

    it('runs the service as node itself (PID 1), never through npm or a shell, so SIGTERM reaches it', () => {
    const instructions = parseDockerfile(dockerfile);
    expect(instructions.filter((i) => i.keyword === 'ENTRYPOINT')).toEqual([]);
    const cmd = instructions.filter((i) => i.keyword === 'CMD');
    expect(cmd).toHaveLength(1);
    expect(JSON.parse(cmd[0].args)).toEqual(['node', 'dist/main.js']);
    expect(instructions.find((i) => i.keyword === 'STOPSIGNAL')?.args).toBe('SIGTERM');
  });
});

describe('npm start', () => {
  // npm runs a script through `sh -c`; npm passes SIGTERM on to that shell, and a shell waiting on
  // node dies without passing it further. `exec` makes node the process npm signals.
  // test/service/start.e2e.test.ts runs it.
  it('execs node, so the signal npm passes on reaches the service', () => {
    expect(JSON.parse(read('package.json')).scripts.start).toMatch(/^exec node dist\/main\.js$/);
  });
});

describe('docker-compose.yml', () => {
  const compose = parseYaml(read('docker-compose.yml'));
  const override = parseYaml(read('docker-compose.override.yml'));
  const text = read('docker-compose.yml');

  it('pins Neo4j 5.26, the long-term release', () => {
    expect(compose.services.neo4j.image).toMatch(/^neo4j:5\.26(-community)?$/);
  });

  it('has no default password and keeps secrets in files', () => {
    expect(text).not.toMatch(/PASSWORD[^\n]*:-/);
    expect(text).not.toMatch(/NEO4J_AUTH:\s*neo4j\//);
    expect(compose.services.neo4j.environment.NEO4J_AUTH_FILE).toBe('/run/secrets/neo4j_auth');
    expect(compose.services.api.environment.NEO4J_PASSWORD_FILE).toBe('/run/secrets/neo4j_password');
    expect(compose.services.api.environment.JWT_SECRET_FILE).toBe('/run/secrets/jwt_secret');
    expect(Object.keys(compose.secrets).sort()).toEqual(['jwt_secret', 'neo4j_auth', 'neo4j_password']);
  });

  it('passes every API setting through an env_file and wires only the containers itself', () => {
    expect(compose.services.api.env_file).toBe('.env');
    expect(Object.keys(compose.services.api.environment).sort()).toEqual(
      ['JWT_SECRET_FILE', 'NEO4J_PASSWORD_FILE', 'NEO4J_URI', 'STORE'].sort(),
    );
  });

  it("keeps the password off the healthcheck's command line", () => {
    const check = compose.services.neo4j.healthcheck.test.join(' ');
    expect(check).toMatch(/cypher-shell/);
    expect(check).not.toMatch(/\s(-p|--password)\b/);
    expect(check).toMatch(/NEO4J_PASSWORD=/);
  });

  it('publishes development-only ports only in the override file', () => {
    expect(compose.services.neo4j.ports).toBeUndefined();
    expect(override.services.neo4j.ports).toEqual(['127.0.0.1:7474:7474', '127.0.0.1:7687:7687']);
    expect(compose.services.api.ports).toEqual(['4000:4000']);
  });
});

/**
 * The `replicas` profile (docs/operations.md, "Running several instances"): the migration as a
 * step of its own, two API replicas sharing what must be shared, a Redis and a load balancer.
 * Checked statically like the rest (no Docker engine here; the CI compose job runs the default
 * profile).
 */
describe('docker-compose.yml: the replicas profile', () => {
  const compose = parseYaml(read('docker-compose.yml'));
  const services: Record<string, any> = compose.services;
  const replicas = Object.keys(services).filter((name) => /^api-\d+$/.test(name));
  const profiled = Object.keys(services).filter((name) => services[name].profiles);
  const nginx = read('deploy/nginx-replicas.conf');
  const SHARED = ['STORE', 'NEO4J_URI', 'NEO4J_PASSWORD_FILE', 'JWT_SECRET_FILE', 'REDIS_URL', 'MIGRATE_ON_START', 'TRUST_PROXY'];

  it('adds two replicas, a Redis, the migration step and a load balancer, and leaves `docker compose up` as it was', () => {
    expect(replicas).toEqual(['api-1', 'api-2']);
    expect(profiled.sort()).toEqual(['api-1', 'api-2', 'lb', 'migrate', 'redis']);
    for (const name of profiled) expect(services[name].profiles).toEqual(['replicas']);
    expect(services.api.profiles).toBeUndefined();
    expect(services.neo4j.profiles).toBeUndefined();
  });

  it('every replica shares the store (neo4j://), the signing secret and the Redis, and waits for the migration', () => {
    for (const name of replicas) {
      const r = services[name];
      expect(r.image).toBe(services.api.image);
      expect(r.env_file).toBe('.env');
      expect(Object.keys(r.environment).sort()).toEqual([...SHARED].sort());
      expect(r.environment).toMatchObject({
        STORE: 'neo4j',
        NEO4J_URI: 'neo4j://neo4j:7687',
        JWT_SECRET_FILE: '/run/secrets/jwt_secret',
        NEO4J_PASSWORD_FILE: '/run/secrets/neo4j_password',
        REDIS_URL: 'redis://redis:6379',
        MIGRATE_ON_START: 'false',
        TRUST_PROXY: '1',
      });
      // Each setting is one the API reads, with a value it accepts.
      expect(() => loadConfig({ ...r.environment, NEO4J_PASSWORD_FILE: undefined, JWT_SECRET_FILE: undefined })).not.toThrow();
      expect(r.secrets.sort()).toEqual(['jwt_secret', 'neo4j_password']);
      expect(r.depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
      });
      // Reached only through the load balancer; drained like `api`.
      expect(r.ports).toBeUndefined();
      expect(r.stop_grace_period).toBe(services.api.stop_grace_period);
    }
  });

  it('the migration runs once as a step of its own, with the Neo4j settings only', () => {
    const m = services.migrate;
    expect(m.image).toBe(services.api.image);
    expect(m.command).toEqual(['node', 'dist/cli/migrate-neo4j.js']);
    expect(fs.existsSync(path.join(ROOT, 'src/cli/migrate-neo4j.ts'))).toBe(true);
    expect(JSON.parse(read('package.json')).scripts['migrate:neo4j']).toBe('tsx src/cli/migrate-neo4j.ts');
    expect(m.restart).toBe('no');
    expect(m.depends_on).toEqual({ neo4j: { condition: 'service_healthy' } });
    expect(m.environment).toEqual({ NEO4J_URI: 'neo4j://neo4j:7687', NEO4J_PASSWORD_FILE: '/run/secrets/neo4j_password' });
    expect(m.secrets).toEqual(['neo4j_password']);
  });

  it('Redis: pinned, checked with PING, kept inside the Compose network, nothing persisted', () => {
    const r = services.redis;
    expect(r.image).toMatch(/^redis:7\.\d+(-alpine)?$/);
    expect(r.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(r.ports).toBeUndefined();
    expect(r.command).toEqual(['redis-server', '--save', '', '--appendonly', 'no']);
  });

  it('the load balancer: pinned nginx on port 4000, once every replica is healthy, over exactly the replicas', () => {
    const lb = services.lb;
    expect(lb.image).toMatch(/^nginx:1\.\d+(-alpine)?$/);
    expect(lb.ports).toEqual(['4000:80']);
    expect(lb.volumes).toEqual(['./deploy/nginx-replicas.conf:/etc/nginx/conf.d/default.conf:ro']);
    expect(lb.depends_on).toEqual(Object.fromEntries(replicas.map((n) => [n, { condition: 'service_healthy' }])));
    const upstream = /upstream worship_records \{([^}]*)\}/.exec(nginx)![1];
    expect([...upstream.matchAll(/^\s*server ([\w-]+):(\d+)\b/gm)].map((m) => `${m[1]}:${m[2]}`)).toEqual(replicas.map((n) => `${n}:4000`));
    expect(nginx).toMatch(/proxy_pass http:\/\/worship_records;/);
    // TRUST_PROXY=1 reads the last X-Forwarded-For entry: the one nginx appends.
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    // Upstream keep-alive needs HTTP/1.1 without "Connection: close".
    expect(nginx).toMatch(/proxy_http_version 1\.1;/);
    expect(nginx).toMatch(/proxy_set_header Connection "";/);
    expect(nginx).not.toMatch(/non_idempotent/);
    expect(read('.dockerignore').split('\n')).toContain('deploy');
  });

  it('every dependency and secret named exists, and Neo4j advertises an address the other containers reach', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const dep of Object.keys(service.depends_on ?? {})) expect([name, dep, dep in services]).toEqual([name, dep, true]);
      for (const secret of service.secrets ?? []) expect([name, secret, secret in compose.secrets]).toEqual([name, secret, true]);
    }
    expect(services.neo4j.environment.NEO4J_server_default__advertised__address).toBe('neo4j');
    expect(read('docker-compose.yml')).not.toMatch(/bolt:\/\//);
  });
});

describe('configuration is documented in full', () => {
  const all = [...ENV_NAMES, ...FILE_SECRETS.map((n) => `${n}_FILE`)];

  it('.env.example lists every variable', () => {
    const listed = read('.env.example')
      .split('\n')
      .map((l) => /^([A-Z_0-9]+)=/.exec(l)?.[1])
      .filter(Boolean);
    expect([...listed].sort()).toEqual([...all].sort());
  });

  it("docs/operations.md's Configuration table names every variable", () => {
    const readme = read('docs/operations.md');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
    for (const name of all) expect(table).toContain(`\`${name}\``);
  });
});

describe('secrets from files (<NAME>_FILE)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
  const file = (name: string, content: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };
  const SECRET = 'file-secret-that-is-at-least-32-chars-long';

  it('reads each secret from its file, dropping one trailing newline', () => {
    const config = loadConfig({
      JWT_SECRET_FILE: file('jwt', `${SECRET}\n`),
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD_FILE: file('admin', 'admin pass word\r\n'),
      STORE: 'neo4j',
      NEO4J_URI: 'bolt://localhost:7687',
      NEO4J_PASSWORD_FILE: file('neo4j', 'neo4j-password'),
      METRICS_TOKEN_FILE: file('metrics', 'metrics-token-0123456789\n'),
    });
    expect(config.jwtSecret).toBe(SECRET);
    expect(config.jwtSecretGenerated).toBe(false);
    expect(config.admin).toEqual({ username: 'admin', password: 'admin pass word' });
    expect(config.neo4j.password).toBe('neo4j-password');
    expect(config.metricsToken).toBe('metrics-token-0123456789');
  });

  it.each([
    ['both a value and a file', { JWT_SECRET: SECRET, JWT_SECRET_FILE: '/nonexistent' }, /set JWT_SECRET or JWT_SECRET_FILE, not both/],
    ['a missing file', { JWT_SECRET_FILE: '/nonexistent/jwt' }, /JWT_SECRET_FILE cannot be read \(ENOENT: \/nonexistent\/jwt\)/],
    ['an empty file', { ADMIN_USERNAME: 'a', ADMIN_PASSWORD_FILE: 'EMPTY' }, /ADMIN_PASSWORD_FILE names an empty file/],
  ])('refuses %s with one line naming the variable', (_label, env, message) => {
    const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'EMPTY' ? file('empty', '') : v]));
    expect(() => loadConfig(resolved)).toThrow(ConfigError);
    expect(() => loadConfig(resolved)).toThrow(message);
  });

  it('validates a secret from a file like one from the environment, without printing it', () => {
    const short = 'short-secret-1';
    let message = '';
    try {
      loadConfig({ JWT_SECRET_FILE: file('short', short) });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/JWT_SECRET must be at least 32 characters/);
    expect(message).not.toContain(short);
  });
});
