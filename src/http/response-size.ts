import type { Response } from 'express';
import { AppError } from '../errors';

/**
 * The bound on every answer's body (MAX_RESPONSE_BYTES, docs/API.md): an answer is serialised
 * once, measured, and either sent as it is or replaced by this error, so no client ever receives,
 * and no socket ever buffers, more than the bound; nothing of the refused body is kept.
 */
export function oversize(body: string, maxBytes: number): AppError | undefined {
  // A UTF-16 unit is at most three bytes of UTF-8: most answers need no byte count at all.
  if (body.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes <= maxBytes) return undefined;
  return new AppError(
    'BAD_REQUEST',
    `The answer would be ${bytes} bytes, over the limit of ${maxBytes} (MAX_RESPONSE_BYTES): ask for fewer items (limit, first) or fewer fields`,
  );
}

/** `res.json(value)` within the bound; `refuse` answers the error in the facade's own shape. */
export function sendJsonWithin(res: Response, value: unknown, maxBytes: number, refuse: (error: AppError) => void): void {
  const body = JSON.stringify(value);
  const error = body === undefined ? undefined : oversize(body, maxBytes);
  if (error) return refuse(error);
  if (!res.get('Content-Type')) res.type('json');
  res.send(body);
}
