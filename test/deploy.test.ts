import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, ENV_NAMES, FILE_SECRETS, loadConfig } from '../src/config';
import { lintDockerfile, parseDockerfile } from './helpers/dockerfile-lint';

/**
 * The container and its configuration, checked statically: there is no Docker here, so
 * nothing is built or run. The Dockerfile is checked against the common hadolint rules by
 * test/helpers/dockerfile-lint.ts (a re-implementation, not hadolint itself).
 */

const ROOT = path.resolve(__dirname, '..');
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
  // test/start.e2e.test.ts runs it.
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
