import { keptJwtSecret } from './auth/kept-secret';
import { ConfigError, loadConfig, type Config } from './config';
import { loadEnvFile } from './env-file';
import { createLogger } from './logger';

async function main() {
  const envFile = loadEnvFile();
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  if (envFile) log.info({ file: envFile }, `settings read from ${envFile} (the environment's own win)`);
  if (config.jwtSecretFile) {
    // Never the secret itself in the log: where it is, and whether it is new.
    const kept = keptJwtSecret(config.jwtSecretFile);
    config = { ...config, jwtSecret: kept.secret };
    log.warn(
      { file: kept.file, created: kept.created },
      kept.created
        ? `JWT_SECRET is not set: generated a secret and kept it in ${kept.file} (mode 0600), so tokens outlive a restart`
        : `JWT_SECRET is not set: using the secret kept in ${kept.file}`,
    );
    if (kept.looseMode) log.warn({ file: kept.file }, `${kept.file} is readable by other users: chmod 600 it`);
  } else if (config.jwtSecretGenerated) {
    log.warn('JWT_SECRET is not set: using a random secret for this process, so tokens end with it');
  }
  // Loaded only once the configuration is known to be good, so a bad setting fails at once.
  const { startServer } = require('./server') as typeof import('./server');
  const { INSIGHTS_PATH, PLAN_PATH } = require('./explorers') as typeof import('./explorers');
  const server = await startServer(config, log);
  log.info(
    {
      store: config.store,
      rest: `${server.url}/api/v1`,
      graphql: `${server.url}/graphql`,
      insights: `${server.url}${INSIGHTS_PATH}`,
      plan: `${server.url}${PLAN_PATH}`,
      timeZone: config.serviceTimeZone,
    },
    `listening on ${server.url}`,
  );
  if (config.serviceTimeZoneDefaulted) {
    log.warn(
      { timeZone: config.serviceTimeZone },
      'SERVICE_TIME_ZONE is not set: service dates are read and reported in UTC, so an evening service ' +
        'west of Greenwich is listed on the next day; set it to your IANA zone, e.g. SERVICE_TIME_ZONE=America/Chicago',
    );
  }
  if (server.adminPassword) {
    // Straight to the terminal, once: a password is never written to the structured log.
    process.stderr.write(
      `\nCreated the ADMIN user '${config.admin!.username}' with a generated password, shown only this once:\n\n` +
        `    ${server.adminPassword}\n\n` +
        `Log in with it; change it with: npm run user -- reset-password --username ${config.admin!.username}\n\n`,
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, timeoutSeconds: config.shutdownTimeoutSeconds }, 'shutting down');
    try {
      await server.close();
      log.info('stopped: store closed');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(`Startup failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
