import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Signing by the Standard Webhooks specification, with its reference library (`standardwebhooks`):
 * `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` under each secret
 * in force, space-separated, so a receiver keeps verifying while a rotated secret's overlap lasts.
 */

/** A new secret as the specification writes them: `whsec_` and base64 of 24 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export const SECRET_FORM = /^whsec_[A-Za-z0-9+/]{32}$/;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three headers of one attempt: `secrets` are the endpoint's secrets in force, newest first. */
export function signedHeaders(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  const signature = secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}
