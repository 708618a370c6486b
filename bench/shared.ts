import type { SeedInfo } from './seed';

/** What bench/server.ts and bench/run.ts agree on. */
export const BENCH_ADMIN = { username: 'bench-admin', password: 'bench-admin-password-1' };

/** Sent by the server process over IPC (or printed) once it listens. */
export interface ReadyMessage {
  type: 'ready';
  pid: number;
  /** The real server: /api/v1, /graphql. */
  facadeUrl: string;
  /** The bare comparator and the /__bench endpoints, same process, same store instance. */
  bareUrl: string;
  seed: SeedInfo;
  startupMs: number;
}

/** GET /__bench/stats */
export interface BenchStats {
  /** Store calls per method since the last POST /__bench/reset. */
  calls: Record<string, number>;
  rss: number;
  /** process.resourceUsage().maxRSS, in bytes: the peak since the process started. */
  maxRss: number;
  /** process.cpuUsage() of the server process, user + system, in microseconds since it started. */
  cpuMicros: number;
}
