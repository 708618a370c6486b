import type { Response } from 'express';
import { ERROR_STATUS, type AppError, type ErrorCode, type FieldProblem } from '../errors';

export interface RestError {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: ErrorCode; message: string; details?: FieldProblem[] } };
}

export function restError(error: AppError): RestError {
  const headers: Record<string, string> = {};
  if (error.code === 'UNAUTHENTICATED') headers['WWW-Authenticate'] = 'Bearer';
  if (error.retryAfter !== undefined) headers['Retry-After'] = String(error.retryAfter);
  const body: RestError['body'] = { error: { code: error.code, message: error.message } };
  if (error.details?.length) body.error.details = error.details;
  return { status: ERROR_STATUS[error.code], headers, body };
}

/** Answers with the contract's error shape (docs/API.md). */
export function sendError(res: Response, error: AppError): void {
  const { status, headers, body } = restError(error);
  res.status(status).set(headers).json(body);
}
