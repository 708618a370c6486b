import { GraphQLScalarType, Kind } from 'graphql';
import { DateFormatError, parseTimestamp } from '../domain/dates';

function parse(value: unknown): number {
  try {
    return parseTimestamp(value);
  } catch (err) {
    if (err instanceof DateFormatError) throw new TypeError(`Timestamp ${err.message}`);
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
    throw new TypeError('Timestamp must be an integer or a date-time string');
  },
});
