import type { ApolloServerPlugin } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import { oversize } from '../http/response-size';

/** Apollo's own serialisation of a result (its `prettyJSONStringify`), field order included. */
const serialise = (result: FormattedExecutionResult): string =>
  JSON.stringify({ errors: result.errors, data: result.data, extensions: result.extensions }) + '\n';

/**
 * The answer bound (MAX_RESPONSE_BYTES) on /graphql. The plugin serialises each result when it is
 * final (errors formatted) and measures it; an answer over the bound becomes a 400 BAD_REQUEST
 * with no data. Apollo only sets the status before it serialises, so the text is kept beside the
 * result (weakly: it goes with the result) and `stringifyResult` hands it over instead of
 * serialising twice.
 */
export function responseLimit(maxBytes: number) {
  const serialised = new WeakMap<object, { result: FormattedExecutionResult; body: string }>();

  const plugin: ApolloServerPlugin = {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          const body = serialise(result);
          const error = oversize(body, maxBytes);
          if (!error) {
            if (result.data) serialised.set(result.data, { result, body });
            return;
          }
          response.body.singleResult = { errors: [{ message: error.message, extensions: { code: error.code } }] };
          response.http.status = 400;
        },
      };
    },
  };

  function stringifyResult(value: FormattedExecutionResult): string {
    const kept = value.data ? serialised.get(value.data) : undefined;
    if (kept && kept.result.errors === value.errors && kept.result.extensions === value.extensions) return kept.body;
    return serialise(value);
  }

  return { plugin, stringifyResult };
}
