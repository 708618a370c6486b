import crypto from 'node:crypto';
import { DEFAULT_SERVICE_TIMES, type ServiceTimes } from './domain/dates';
import fs from 'node:fs';
import path from 'node:path';
import { Info } from 'luxon';
import { z } from 'zod';

/** Everything the process reads from its environment (docs/API.md), validated once at startup. */
export interface Config {
  port: number;
  host: string;
  production: boolean;
  store: 'sqlite' | 'neo4j';
  sqlitePath: string;
  neo4j: {
    uri?: string;
    user?: string;
    password?: string;
    database?: string;
    /** How long a transaction is retried through transient failures (a leader election) before 503. */
    retrySeconds: number;
    /** Connections this process may hold open to Neo4j. */
    maxPoolSize: number;
  };
  /**
   * Apply the store's migrations when the service starts (Neo4j: false leaves them to
   * `npm run migrate:neo4j`, and the service waits for them to be done).
   */
  migrateOnStart: boolean;
  /** How long a starting instance waits for another's migration before giving up. */
  migrationWaitSeconds: number;
  /** Redis shared by every instance for login and request limits; unset: counted per process. */
  redisUrl?: string;
  jwtSecret: string;
  /**
   * True when JWT_SECRET was not set: `jwtSecret` is then random, for this process only, until
   * main.ts replaces it by the secret kept in `jwtSecretFile`.
   */
  jwtSecretGenerated: boolean;
  /**
   * Without JWT_SECRET, where a generated secret is kept so tokens outlive a restart: `jwt-secret`
   * in the data directory. Unset when JWT_SECRET is given, and for an in-memory SQLite store
   * without DATA_DIR (whose users end with the process anyway).
   */
  jwtSecretFile?: string;
  jwtExpiresIn: string;
  /** The ADMIN to create on first start; with no password, one is generated and shown once. */
  admin?: { username: string; password?: string };
  /** SERVICE_TIME_ZONE was not set: UTC is used, and the startup log says how to choose. */
  serviceTimeZoneDefaulted: boolean;
  serviceTimeZone: string;
  /** Each service type's usual local time, for a service date given as a day alone (SERVICE_TIMES). */
  serviceTimes: ServiceTimes;
  corsOrigins: string[] | '*';
  /** Apollo Sandbox page and introspection; off in production unless GRAPHQL_INTROSPECTION=true. */
  graphqlIntrospection: boolean;
  graphqlMaxDepth: number;
  graphqlMaxCost: number;
  graphqlMaxAliases: number;
  /** The largest answer body either facade sends; a larger one is refused (docs/API.md). */
  maxResponseBytes: number;
  loginMaxFailures: number;
  loginWindowSeconds: number;
  /** Express `trust proxy`: set when running behind a load balancer so client addresses are right. */
  trustProxy: string | number | false;
  /** Request rate limits per client (docs/API.md, Rate limits); undefined when RATE_LIMIT=off. */
  rateLimit?: RateLimitPolicy;
  logLevel: string;
  /** Bearer token GET /metrics requires; open when unset. */
  metricsToken?: string;
  /** How long a shutdown waits for requests in flight before cutting them. */
  shutdownTimeoutSeconds: number;
  webhooks: WebhookSettings;
}

/** Webhook delivery (docs/operations.md, Webhooks). */
export interface WebhookSettings {
  /** This process delivers (WEBHOOKS_DELIVERY=on); off leaves it to other replicas. */
  deliver: boolean;
  /** Plain http and loopback, private and link-local targets (tests, a church's own network). */
  allowPrivateTargets: boolean;
  /** DNS servers to resolve endpoint hosts with, instead of the system's. */
  dnsServers?: string[];
  /** The waits after each failed try, in ms (the default is src/webhooks/schedule.ts). */
  retryDelaysMs?: number[];
  /** How long a delivery a worker took is its own: after that, another may send it. */
  leaseMs: number;
}

/** Points each client may spend per window, and what a request costs (src/http/rate-limit.ts). */
export interface RateLimitPolicy {
  points: number;
  windowSeconds: number;
  /** An analytics request: a report route, or each analytics field of a GraphQL operation. */
  analyticsWeight: number;
  /** A CSV report (`format=csv` or `Accept: text/csv`). */
  csvWeight: number;
}

export class ConfigError extends Error {}

const DURATION = /^\d+(ms|s|m|h|d|w|y)?$/;

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const Env = z.object({
  PORT: int(0, 65535).default(4000),
  // Loopback unless told otherwise: a first start on a laptop is not on the network. The
  // container image sets HOST=0.0.0.0 itself.
  HOST: z.string().min(1).default('127.0.0.1'),
  NODE_ENV: z.string().optional(),
  STORE: z.enum(['sqlite', 'neo4j'], { error: "must be 'sqlite' or 'neo4j'" }).default('sqlite'),
  SQLITE_PATH: z.string().min(1).default('./data/songs.db'),
  DATA_DIR: z.string().min(1).optional(),
  NEO4J_URI: z.string().optional(),
  NEO4J_USER: z.string().optional(),
  NEO4J_PASSWORD: z.string().optional(),
  NEO4J_DATABASE: z.string().optional(),
  // Long enough to ride out a cluster's leader election (seconds, typically under 20).
  NEO4J_RETRY_SECONDS: int(0, 600).default(30),
  NEO4J_MAX_POOL_SIZE: int(1, 10_000).default(100),
  MIGRATE_ON_START: bool.default(true),
  MIGRATION_WAIT_SECONDS: int(0, 86_400).default(300),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\/[^\s]+$/.test(v) && URL.canParse(v), 'must be a redis:// or rediss:// URL')
    .optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_EXPIRES_IN: z.string().regex(DURATION, "must be a duration such as 3600, '15m', '1h' or '7d'").default('1h'),
  ADMIN_USERNAME: z.string().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  SERVICE_TIME_ZONE: z
    .string()
    .refine((zone) => Info.isValidIANAZone(zone), 'must be an IANA time zone such as Europe/London')
    .default('UTC'),
  // `SUN_AM=10:30,WED=19:30`: the types named replace their defaults (DEFAULT_SERVICE_TIMES).
  SERVICE_TIMES: z
    .string()
    .regex(
      /^(?:SUN_AM|SUN_PM|WED)=(?:[01][0-9]|2[0-3]):[0-5][0-9](?:,(?:SUN_AM|SUN_PM|WED)=(?:[01][0-9]|2[0-3]):[0-5][0-9])*$/,
      'must list TYPE=HH:mm for SUN_AM, SUN_PM or WED, separated by commas, e.g. SUN_AM=10:30,WED=19:00',
    )
    .optional(),
  CORS_ORIGINS: z.string().default('*'),
  GRAPHQL_INTROSPECTION: bool.optional(),
  GRAPHQL_MAX_DEPTH: int(1, 100).default(10),
  GRAPHQL_MAX_COST: int(1, 1e15).default(50_000),
  GRAPHQL_MAX_ALIASES: int(0, 1000).default(15),
  MAX_RESPONSE_BYTES: int(1024, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
  LOGIN_MAX_FAILURES: int(1, 1000).default(10),
  LOGIN_WINDOW_SECONDS: int(1, 86400).default(900),
  TRUST_PROXY: z.string().optional(),
  RATE_LIMIT: z.enum(['on', 'off'], { error: "must be 'on' or 'off'" }).default('on'),
  RATE_LIMIT_POINTS: int(1, 1_000_000).default(3000),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 86400).default(60),
  RATE_LIMIT_ANALYTICS_WEIGHT: int(1, 1_000_000).default(5),
  RATE_LIMIT_CSV_WEIGHT: int(1, 1_000_000).default(20),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SHUTDOWN_TIMEOUT_SECONDS: int(0, 600).default(10),
  WEBHOOKS_DELIVERY: z.enum(['on', 'off'], { error: "must be 'on' or 'off'" }).default('on'),
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: bool.default(false),
  WEBHOOKS_DNS_SERVERS: z
    .string()
    .regex(/^[^,\s]+(?:,[^,\s]+)*$/, 'must list DNS servers (address or address:port) separated by commas')
    .optional(),
  WEBHOOKS_LEASE_SECONDS: int(1, 3600).default(60),
  WEBHOOKS_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(?:\.\d+)?(?:,\d+(?:\.\d+)?){0,19}$/, 'must list 1 to 20 waits in seconds separated by commas, e.g. 5,300,1800')
    .optional(),
});

/** The file, in the data directory, that keeps a generated JWT secret. */
export const KEPT_SECRET_NAME = 'jwt-secret';

/**
 * The directory of the service's own files when DATA_DIR is not set: the SQLite file's, or
 * `./data` (where that file is by default) with Neo4j. None for an in-memory SQLite store.
 */
function defaultDataDir(store: 'sqlite' | 'neo4j', sqlitePath: string): string | undefined {
  if (store === 'neo4j') return 'data';
  return sqlitePath === ':memory:' ? undefined : path.dirname(sqlitePath);
}

/** Every variable the API reads (docs/operations.md: Configuration; .env.example lists them all). */
export const ENV_NAMES = Object.keys(Env.shape);

/** Secrets that may also come from a file (`<NAME>_FILE`), as Docker and Kubernetes secrets are mounted. */
export const FILE_SECRETS = ['JWT_SECRET', 'ADMIN_PASSWORD', 'NEO4J_PASSWORD', 'METRICS_TOKEN', 'REDIS_URL'] as const;

/**
 * Replace each `<NAME>_FILE` by the file's content as `<NAME>` (one trailing newline dropped, as
 * `echo` and most editors add it). Problems name the variable and the reason, never the content.
 */
export function readSecretFiles(env: Record<string, string>): { env: Record<string, string>; problems: string[] } {
  const out = { ...env };
  const problems: string[] = [];
  for (const name of FILE_SECRETS) {
    const file = env[`${name}_FILE`];
    delete out[`${name}_FILE`];
    if (file === undefined) continue;
    if (env[name] !== undefined) {
      problems.push(`set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      const value = fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      if (value !== '') out[name] = value;
      else problems.push(`${name}_FILE names an empty file (${file})`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      problems.push(`${name}_FILE cannot be read (${code}: ${file})`);
    }
  }
  return { env: out, problems };
}

/**
 * Express reads a `trust proxy` string as a list of addresses, so `TRUST_PROXY=1` (one load
 * balancer in front, as docs/operations.md says) must become the number 1, "trust one hop", or
 * every client would share the balancer's address (and its rate limit). Addresses and names
 * (`loopback`, `10.0.0.0/8, 127.0.0.1`) pass through as they are.
 */
function trustProxy(value: string | undefined): string | number | false {
  if (value === undefined) return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/**
 * Parse the environment. Throws ConfigError whose message is one line per problem, each naming the
 * variable, and never echoing a value (a bad value may be a secret).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty variables count as unset, as a shell `FOO=` usually means.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>;
  const { env: present, problems: fileProblems } = readSecretFiles(given);
  if (fileProblems.length) throw new ConfigError(`Invalid configuration: ${fileProblems.join('; ')}`);
  const parsed = Env.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const problems: string[] = [];
  if (production && !e.JWT_SECRET) {
    problems.push('JWT_SECRET is required when NODE_ENV=production (at least 32 characters)');
  }
  if (e.STORE === 'neo4j' && !e.NEO4J_URI) problems.push('NEO4J_URI is required when STORE=neo4j');
  if (e.ADMIN_PASSWORD && !e.ADMIN_USERNAME) problems.push('ADMIN_PASSWORD needs ADMIN_USERNAME (the account it is for)');
  // A weight above the budget would refuse every such request.
  for (const name of ['RATE_LIMIT_ANALYTICS_WEIGHT', 'RATE_LIMIT_CSV_WEIGHT'] as const) {
    if (e.RATE_LIMIT === 'on' && e[name] > e.RATE_LIMIT_POINTS) problems.push(`${name} must not exceed RATE_LIMIT_POINTS`);
  }
  if (problems.length) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);

  const origins = e.CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean);
  const dataDir = e.DATA_DIR ?? defaultDataDir(e.STORE, e.SQLITE_PATH);
  return {
    port: e.PORT,
    host: e.HOST,
    production,
    store: e.STORE,
    sqlitePath: e.SQLITE_PATH,
    neo4j: {
      uri: e.NEO4J_URI,
      user: e.NEO4J_USER,
      password: e.NEO4J_PASSWORD,
      database: e.NEO4J_DATABASE,
      retrySeconds: e.NEO4J_RETRY_SECONDS,
      maxPoolSize: e.NEO4J_MAX_POOL_SIZE,
    },
    migrateOnStart: e.MIGRATE_ON_START,
    migrationWaitSeconds: e.MIGRATION_WAIT_SECONDS,
    redisUrl: e.REDIS_URL,
    jwtSecret: e.JWT_SECRET ?? crypto.randomBytes(48).toString('base64url'),
    jwtSecretGenerated: !e.JWT_SECRET,
    jwtSecretFile: !e.JWT_SECRET && dataDir !== undefined ? path.join(dataDir, KEPT_SECRET_NAME) : undefined,
    jwtExpiresIn: e.JWT_EXPIRES_IN,
    admin: e.ADMIN_USERNAME ? { username: e.ADMIN_USERNAME, password: e.ADMIN_PASSWORD || undefined } : undefined,
    serviceTimeZone: e.SERVICE_TIME_ZONE,
    serviceTimeZoneDefaulted: present.SERVICE_TIME_ZONE === undefined,
    serviceTimes: {
      ...DEFAULT_SERVICE_TIMES,
      ...Object.fromEntries((e.SERVICE_TIMES?.split(',') ?? []).map((entry) => entry.split('='))),
    },
    corsOrigins: origins.length === 0 || origins.includes('*') ? '*' : origins,
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION ?? !production,
    graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
    graphqlMaxCost: e.GRAPHQL_MAX_COST,
    graphqlMaxAliases: e.GRAPHQL_MAX_ALIASES,
    maxResponseBytes: e.MAX_RESPONSE_BYTES,
    loginMaxFailures: e.LOGIN_MAX_FAILURES,
    loginWindowSeconds: e.LOGIN_WINDOW_SECONDS,
    trustProxy: trustProxy(e.TRUST_PROXY),
    rateLimit:
      e.RATE_LIMIT === 'on'
        ? {
            points: e.RATE_LIMIT_POINTS,
            windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
            analyticsWeight: e.RATE_LIMIT_ANALYTICS_WEIGHT,
            csvWeight: e.RATE_LIMIT_CSV_WEIGHT,
          }
        : undefined,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
    webhooks: {
      deliver: e.WEBHOOKS_DELIVERY === 'on',
      allowPrivateTargets: e.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
      dnsServers: e.WEBHOOKS_DNS_SERVERS?.split(','),
      retryDelaysMs: e.WEBHOOKS_RETRY_SCHEDULE?.split(',').map((s) => Math.round(Number(s) * 1000)),
      leaseMs: e.WEBHOOKS_LEASE_SECONDS * 1000,
    },
  };
}
