import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors';

/** Does the path decode: every `%` starts a `%XX` escape, and the bytes are UTF-8 (no lone surrogates)? */
export function pathDecodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a request whose path is not valid percent-encoded UTF-8 (`/songs/%ZZ`,
 * `/songs/byArtist/%ED%A0%80`) before any route sees it, whatever the path or method: Express
 * would otherwise throw while reading a route parameter, and a path that cannot be decoded is the
 * client's mistake wherever it points. `answer` writes the error in the facade's own shape.
 */
export function rejectUndecodablePaths(answer: (res: Response, error: AppError) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (pathDecodes(req.path)) return next();
    answer(res, new AppError('BAD_REQUEST', 'The request path is not valid percent-encoded UTF-8'));
  };
}
