/**
 * `npm run neo4j:local`: a real Neo4j Community 5.26 on this machine, without Docker.
 *
 * neo4j-local/ holds a small Java launcher (Launcher.java) and the pom.xml that pins Neo4j. This
 * script asks Maven for the launcher's classpath (offline once ~/.m2 holds it; the first run
 * downloads about 150 MB from Maven Central), compiles the launcher with javac, caches both
 * under neo4j-local/target/ keyed by the hash of the pom, the source and the Java version, and
 * runs it: Bolt on 127.0.0.1 (a free port, or NEO4J_LOCAL_PORT), data in a fresh temporary
 * directory removed on exit (or NEO4J_LOCAL_HOME, kept), a small heap and page cache. Once the
 * default database answers a query it prints, one per line on stdout:
 *
 *   NEO4J_URI=bolt://127.0.0.1:<port>
 *   NEO4J_USER=neo4j
 *   NEO4J_PASSWORD=<random, new on each start>
 *
 * and runs until SIGINT or SIGTERM, which it passes on to the JVM (whose shutdown hook closes the
 * store cleanly). Tests and scripts use startLocalNeo4j() instead.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import neo4j from 'neo4j-driver';

const ROOT = path.join(__dirname, '..');
export const LAUNCHER_DIR = path.join(ROOT, 'neo4j-local');
const POM = path.join(LAUNCHER_DIR, 'pom.xml');
const SOURCE = path.join(LAUNCHER_DIR, 'src/main/java/worshiprecords/neo4jlocal/Launcher.java');
const MAIN_CLASS = 'worshiprecords.neo4jlocal.Launcher';
/** Compiled launchers and resolved classpaths, one folder per input hash (git-ignored). */
const CACHE_DIR = path.join(LAUNCHER_DIR, 'target');

/**
 * What Neo4j's own neo4j.conf passes to its JVM (Netty and the page cache reach into these
 * modules), plus a heap fit for a 2-core machine shared with the test runner.
 */
export const JVM_FLAGS = [
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-opens=java.base/java.io=ALL-UNNAMED',
  '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
  '--enable-native-access=ALL-UNNAMED',
  '-Dio.netty.tryReflectionSetAccessible=true',
  '-XX:-OmitStackTraceInFastThrow',
];
export const DEFAULT_HEAP_MB = 768;
export const DEFAULT_PAGE_CACHE_MB = 128;
/** A loaded 2-core machine takes over a minute to start the JVM and Neo4j; an idle one ~15 s. */
const START_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 60_000;

export interface LocalNeo4j {
  uri: string;
  user: string;
  password: string;
  /** SIGTERM, then wait for the JVM to close the store (and remove its temporary directory). */
  stop(): Promise<void>;
  /** Settles when the JVM has exited, for whatever reason. */
  exited: Promise<void>;
}

export interface LocalNeo4jOptions {
  /** Bolt port; default NEO4J_LOCAL_PORT, else a free one. */
  port?: number;
  /** Data directory, kept after exit; default NEO4J_LOCAL_HOME, else a temporary one, removed. */
  home?: string;
  heapMb?: number;
  pageCacheMb?: number;
  /** 'inherit' shows Neo4j's progress and warnings; 'buffer' keeps them for error messages. */
  stderr?: 'inherit' | 'buffer';
  /** Progress lines (Maven, javac); default: stderr. */
  log?: (line: string) => void;
}

function run(cmd: string, args: string[], cwd = ROOT) {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
}

/** Java's major version, e.g. 17, or null when `java` cannot run. */
function javaMajor(): number | null {
  const out = run('java', ['-version']);
  if (out.error || out.status !== 0) return null;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(out.stderr);
  if (!m) return null;
  return m[1] === '1' ? Number(m[2]) : Number(m[1]);
}

/**
 * Why the local launcher cannot run here (one line), or null when java 17+, javac and mvn are
 * all on PATH.
 */
export function localNeo4jMissing(): string | null {
  const major = javaMajor();
  if (major === null) return 'java is not on PATH (Neo4j 5.26 needs Java 17 or 21: apt-get install openjdk-17-jdk-headless)';
  if (major < 17) return `java is version ${major}; Neo4j 5.26 needs Java 17 or 21`;
  if (run('javac', ['-version']).status !== 0) return 'javac is not on PATH (install a JDK, not only a JRE: openjdk-17-jdk-headless)';
  if (run('mvn', ['-v']).status !== 0) return 'mvn is not on PATH (Maven resolves Neo4j from Maven Central: apt-get install maven)';
  return null;
}

function lastLines(text: string, n = 15): string {
  return text.trim().split('\n').slice(-n).join('\n');
}

/**
 * The launcher's classpath and compiled class, built once per pom/source/Java version. Built in
 * a private folder then renamed into place, so concurrent first runs cannot see half a cache.
 */
export function prepareLauncher(log: (line: string) => void = (l) => console.error(l)): string {
  const hash = crypto
    .createHash('sha256')
    .update(fs.readFileSync(POM))
    .update(fs.readFileSync(SOURCE))
    .update(String(javaMajor()))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(CACHE_DIR, hash);
  const classpathFile = path.join(dir, 'classpath.txt');
  const classes = path.join(dir, 'classes');
  if (fs.existsSync(classpathFile)) {
    const jars = fs.readFileSync(classpathFile, 'utf8').trim();
    // The Maven cache may have been cleaned since: then resolve again.
    if (jars.split(path.delimiter).every((jar) => fs.existsSync(jar))) return `${classes}${path.delimiter}${jars}`;
    fs.rmSync(dir, { recursive: true, force: true });
  }

  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const work = fs.mkdtempSync(path.join(CACHE_DIR, 'building-'));
  try {
    const outFile = path.join(work, 'classpath.txt');
    const resolve = (offline: boolean) =>
      run('mvn', [...(offline ? ['-o'] : []), '-B', '-q', '-f', POM, 'dependency:build-classpath', `-Dmdep.outputFile=${outFile}`]);
    let mvn = resolve(true);
    if (mvn.status !== 0) {
      log('neo4j:local: resolving Neo4j 5.26 from Maven Central into ~/.m2 (first run: about 150 MB)');
      mvn = resolve(false);
      if (mvn.status !== 0) throw new Error(`mvn dependency:build-classpath failed:\n${lastLines(`${mvn.stdout}${mvn.stderr}`)}`);
    }
    const jars = fs.readFileSync(outFile, 'utf8').trim();
    log('neo4j:local: compiling the launcher');
    const javac = run('javac', ['--release', '17', '-d', path.join(work, 'classes'), '-cp', jars, SOURCE]);
    if (javac.status !== 0) throw new Error(`javac failed:\n${lastLines(`${javac.stdout}${javac.stderr}`)}`);
    try {
      fs.renameSync(work, dir);
    } catch (err) {
      // Another run finished the same cache first: use theirs.
      if (!fs.existsSync(classpathFile)) throw err;
    }
    // One entry is kept: those of earlier poms, sources or Javas are never read again.
    for (const entry of fs.readdirSync(CACHE_DIR)) {
      if (/^[0-9a-f]{16}$/.test(entry) && entry !== hash) fs.rmSync(path.join(CACHE_DIR, entry), { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return `${classes}${path.delimiter}${fs.readFileSync(classpathFile, 'utf8').trim()}`;
}

function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Wait for the child to exit, at most `ms`; true when it did. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Start a local Neo4j and resolve once the driver this service uses can log in and run a query.
 * The JVM also stops, cleanly, when this process exits without calling stop(), however it exits:
 * it watches its stdin, which only this process holds.
 */
export async function startLocalNeo4j(options: LocalNeo4jOptions = {}): Promise<LocalNeo4j> {
  const log = options.log ?? ((line: string) => console.error(line));
  const missing = localNeo4jMissing();
  if (missing) throw new Error(`neo4j:local cannot run: ${missing}`);
  const classpath = prepareLauncher(log);
  const port = options.port ?? envNumber('NEO4J_LOCAL_PORT');
  const home = options.home ?? (process.env.NEO4J_LOCAL_HOME || undefined);
  const heapMb = options.heapMb ?? DEFAULT_HEAP_MB;
  const args = [
    // Initial heap = maximum, as Neo4j's operations manual recommends: growing the heap takes a
    // full collection (the 1m history's import took 266 s with -Xmx alone, 213 s with both).
    `-Xms${heapMb}m`,
    `-Xmx${heapMb}m`,
    ...JVM_FLAGS,
    '-cp',
    classpath,
    MAIN_CLASS,
    '--exit-on-stdin-eof',
    '--page-cache',
    String(options.pageCacheMb ?? DEFAULT_PAGE_CACHE_MB),
    ...(port !== undefined ? ['--port', String(port)] : []),
    ...(home ? ['--home', path.resolve(home)] : []),
  ];
  const stderrMode = options.stderr ?? 'buffer';
  const child = spawn('java', args, { cwd: ROOT, stdio: ['pipe', 'pipe', stderrMode === 'inherit' ? 'inherit' : 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
  });
  const hasExited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await exited(child, STOP_TIMEOUT_MS))) {
      child.kill('SIGKILL');
      await exited(child, 5_000);
    }
  };

  const settings = await new Promise<Record<string, string>>((resolve, reject) => {
    const found: Record<string, string> = {};
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`Neo4j did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    function fail(err: Error) {
      clearTimeout(timer);
      void stop();
      const detail = stderrMode === 'buffer' && stderr ? `\n${lastLines(stderr)}` : '';
      reject(new Error(`${err.message}${detail}`));
    }
    child.on('error', (err) => fail(err));
    child.on('exit', (code, signal) => fail(new Error(`the Neo4j launcher exited (${signal ?? `code ${code}`}) before it was ready`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        const m = /^(NEO4J_URI|NEO4J_USER|NEO4J_PASSWORD)=(.*)$/.exec(line);
        if (m) found[m[1]] = m[2];
      }
      if (found.NEO4J_URI && found.NEO4J_USER && found.NEO4J_PASSWORD !== undefined) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        resolve(found);
      }
    });
  });

  const server = { uri: settings.NEO4J_URI, user: settings.NEO4J_USER, password: settings.NEO4J_PASSWORD, stop, exited: hasExited };
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
  try {
    await driver.verifyConnectivity();
  } catch (err) {
    await stop();
    throw new Error(`Neo4j started but refused the driver: ${(err as Error).message}`);
  } finally {
    await driver.close();
  }
  return server;
}

async function main(): Promise<number> {
  const missing = localNeo4jMissing();
  if (missing) {
    console.error(`neo4j:local: cannot start Neo4j: ${missing}`);
    return 1;
  }
  const server = await startLocalNeo4j({ stderr: 'inherit' });
  console.log(`NEO4J_URI=${server.uri}`);
  console.log(`NEO4J_USER=${server.user}`);
  console.log(`NEO4J_PASSWORD=${server.password}`);
  console.error('neo4j:local: running; Ctrl-C (SIGINT) or SIGTERM stops it');
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      stopping = true;
      console.error(`neo4j:local: ${signal}: stopping Neo4j`);
      server.stop().then(() => resolve(0), () => resolve(1));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    void server.exited.then(() => {
      if (stopping) return;
      console.error('neo4j:local: Neo4j exited unexpectedly');
      resolve(1);
    });
  });
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`neo4j:local failed: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
