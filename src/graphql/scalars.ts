import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { DateFormatError, parseServiceDate, type ServiceDay } from '../domain/dates';

function parse(value: unknown): number | ServiceDay {
  try {
    return parseServiceDate(value);
  } catch (err) {
    // A GraphQLError is the client's mistake to graphql-js and reaches the client as a 400 with this
    // message; any other error would be taken for a bug and masked as INTERNAL.
    if (err instanceof DateFormatError) throw new GraphQLError(`Timestamp ${err.message}`);
    throw err;
  }
}

/**
 * Epoch milliseconds out; epoch ms, an ISO-8601 date-time with Z or offset, or a calendar day
 * alone in (a ServiceDay, which the service mutations place at the type's usual time).
 */
export const Timestamp = new GraphQLScalarType<number | ServiceDay, number>({
  name: 'Timestamp',
  serialize: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new TypeError('Timestamp cannot represent a non-integer value');
    }
    return value;
  },
  parseValue: parse,
  parseLiteral(ast) {
    if (ast.kind === Kind.INT) return parse(Number(ast.value));
    if (ast.kind === Kind.STRING) return parse(ast.value);
    throw new GraphQLError('Timestamp must be an integer or a date-time string');
  },
});
