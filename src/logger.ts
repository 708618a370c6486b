import pino from 'pino';

/**
 * Structured JSON logs on stdout (or `destination`). Authorization headers and anything that looks
 * like a secret are redacted, should a request or error object ever be logged whole.
 */
export function createLogger(level: string, destination?: pino.DestinationStream) {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      paths: ['req.headers.authorization', '*.password', '*.passwordHash', '*.token', 'password', 'passwordHash', 'token'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
