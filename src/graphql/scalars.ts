import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { DateFormatError, parseTimestamp } from '../domain/dates';

function parse(value: unknown): number {
  try {
    return parseTimestamp(value);
  } catch (err) {
    // A GraphQLError is the client's mistake to graphql-js and reaches the client as a 400 with this
    // message; any other error would be taken for a bug and masked as INTERNAL.
    if (err instanceof DateFormatError) throw new GraphQLError(`Timestamp ${err.message}`);
    throw err;
  }
}

/** Epoch milliseconds out; epoch ms or an ISO-8601 date-time with Z or offset in. */
export const Timestamp = new GraphQLScalarType<number, number>({
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
