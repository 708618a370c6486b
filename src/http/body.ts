import express from 'express';
import { AppError } from '../errors';

/** The largest request body either facade reads (docs/API.md). */
export const BODY_LIMIT = '100kb';

/** The JSON body parser of both facades; `anyContentType` reads every body as JSON (REST). */
export const jsonBody = (anyContentType = false) =>
  express.json({ limit: BODY_LIMIT, ...(anyContentType ? { type: () => true, strict: false } : {}) });

/**
 * body-parser reports its failures as http-errors with a 4xx status; they are the client's, not
 * ours. Those without a `type` come from decompressing the body (a corrupt or truncated gzip,
 * deflate or br stream), which body-parser passes on as a plain 400.
 */
export function bodyParserError(err: unknown): AppError | undefined {
  const { type, status, expose } = (err ?? {}) as { type?: string; status?: number; expose?: boolean };
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${BODY_LIMIT}`);
  if (type === 'entity.parse.failed') return new AppError('BAD_REQUEST', 'The request body is not valid JSON');
  if (type === 'encoding.unsupported') {
    return new AppError('BAD_REQUEST', 'The request Content-Encoding is not supported: use gzip, deflate, br or none');
  }
  if (type === 'charset.unsupported') return new AppError('BAD_REQUEST', 'The request body charset is not supported');
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new AppError('BAD_REQUEST', 'The request body was incomplete');
  }
  if (expose === true && typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError('BAD_REQUEST', 'The request body could not be decoded as its Content-Encoding says');
  }
  return undefined;
}
