import { bodyParserError } from '../../src/http/body';
import { clientError, toAppError } from '../../src/http/errors';

/** How errors from Express's parts become contract codes (the HTTP cases are in rest.hardening.e2e). */
describe('errors below both facades', () => {
  test('a decompression failure (http-error 400 with no type) is BAD_REQUEST', () => {
    const zlib = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR', status: 400, expose: true });
    expect(bodyParserError(zlib)).toMatchObject({ code: 'BAD_REQUEST' });
  });

  test('an error not from the body parser is left to the caller', () => {
    expect(bodyParserError(new Error('boom'))).toBeUndefined();
    expect(bodyParserError({ status: 500, expose: false })).toBeUndefined();
    expect(bodyParserError(undefined)).toBeUndefined();
  });

  test('an error Express marks 4xx (an undecodable route parameter) is the client\'s', () => {
    const uri = Object.assign(new URIError("Failed to decode param '%ZZ'"), { status: 400 });
    expect(clientError(uri)).toMatchObject({ code: 'BAD_REQUEST' });
    expect(clientError({ status: 413 })).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(clientError({ status: 500 })).toBeUndefined();
    expect(clientError(new Error('boom'))).toBeUndefined();
  });

  test('anything else is INTERNAL and logged, with no internals in the message', () => {
    const logged: unknown[] = [];
    const log = { error: (...args: unknown[]) => logged.push(args) } as never;
    expect(toAppError(new TypeError('secret detail'), log)).toMatchObject({ code: 'INTERNAL', message: 'Internal server error' });
    expect(logged).toHaveLength(1);
  });
});
