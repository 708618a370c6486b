import crypto from 'node:crypto';

/**
 * The version a page asks for a file by (`?v=`): the first 16 hex digits of its SHA-256. Made where
 * the file is generated (an import inside a bundle) and where it is served, so both agree.
 */
export const contentHash = (content: string | Buffer): string => crypto.createHash('sha256').update(content).digest('hex').slice(0, 16);
