import {
  getArgumentValues,
  getNamedType,
  getNullableType,
  isAbstractType,
  isLeafType,
  isListType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
// graphql-js's own field collection, as its executor (and graphql-jit) runs it: fragments and
// inline fragments expanded, fields merged by response key, @skip/@include applied.
import { collectFields, collectSubfields } from 'graphql/execution/collectFields';
import type { CostTable, FieldCoordinate } from './cost-table';

/**
 * What an operation may cost, worked out before it runs (docs/API.md, GraphQL: Limits):
 *
 *   cost(field) = 1 + size × cost(its selection)    size = 1 unless the field is a list
 *   cost(leaf)  = 1                                  a list of scalars (`artists`) is one value
 *
 * summed over the fields of every selection, so the cost is the most values the answer can hold.
 * A list's size is its `limit`, `first` or `last` argument (from the literal or the variable),
 * else the table's size for that field, else the page size of the connection field just above it
 * (`songsConnection(first: 5) { edges }` has five edges), else the table's assumed size. The
 * table's weights (database work, batched per level) are added once per field, not per item.
 */

/** The arguments that bound a list (or, on a connection field, its page). */
const PAGE_ARGUMENTS = ['limit', 'first', 'last'];

interface Cost {
  /** Values the answer can hold. */
  values: number;
  /** Weights of the database-heavy fields. */
  work: number;
}

const LEAF: Cost = { values: 1, work: 0 };

export function operationCost(
  schema: GraphQLSchema,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  table: CostTable,
): number {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return 0;
  // Each merged selection is costed once: a fragment spread in many places costs one walk. A
  // selection met again while it is being costed is a fragment cycle (validation refuses those
  // first), and infinitely costly.
  const memo = new Map<string, Cost | 'open'>();
  const ids = new Map<object, number>();
  const idOf = (node: object) => {
    let id = ids.get(node);
    if (id === undefined) ids.set(node, (id = ids.size));
    return id;
  };

  const pageOf = (field: GraphQLField<unknown, unknown>, node: FieldNode): number | undefined => {
    if (!field.args.some((a) => PAGE_ARGUMENTS.includes(a.name))) return undefined;
    const args = getArgumentValues(field, node, variables as Record<string, unknown>);
    for (const name of PAGE_ARGUMENTS) {
      const value = args[name];
      // Anything outside 1..max is refused by the resolver before a single item is read.
      if (typeof value === 'number') return Math.min(Math.max(Math.trunc(value), 1), table.maxListSize);
    }
    return undefined;
  };

  function selectionCost(type: GraphQLObjectType, nodes: readonly FieldNode[], page: number | undefined): Cost {
    const key = `${type.name}|${page ?? ''}|${nodes.map((n) => idOf(n.selectionSet ?? n)).join(',')}`;
    const known = memo.get(key);
    if (known === 'open') return { values: Infinity, work: Infinity };
    if (known) return known;
    memo.set(key, 'open');
    const cost = fieldsCost(type, collectSubfields(schema, fragments, variables as Record<string, unknown>, type, nodes), page);
    memo.set(key, cost);
    return cost;
  }

  function fieldsCost(type: GraphQLObjectType, fields: Map<string, readonly FieldNode[]>, page: number | undefined): Cost {
    const total: Cost = { values: 0, work: 0 };
    for (const nodes of fields.values()) {
      const c = fieldCost(type, nodes, page);
      total.values += c.values;
      total.work += c.work;
    }
    return total;
  }

  function fieldCost(parent: GraphQLObjectType, nodes: readonly FieldNode[], page: number | undefined): Cost {
    const name = nodes[0].name.value;
    // `__typename` is one value; introspection (`__schema`, `__type`) is bounded by the schema.
    if (name.startsWith('__')) return LEAF;
    const field = parent.getFields()[name];
    if (!field) return LEAF;
    const coordinate = `${parent.name}.${name}` as FieldCoordinate;
    const weight = table.weights[coordinate] ?? 0;
    const named = getNamedType(field.type);
    if (isLeafType(named)) return { values: 1, work: weight };

    const own = pageOf(field, nodes[0]);
    const list = isListType(getNullableType(field.type));
    const asked = own ?? table.sizes[coordinate] ?? page ?? table.assumedListSize;
    const size = list ? Math.min(asked, table.bounds[coordinate] ?? asked) : 1;
    // A connection's page is its lists' size: `first` on the field, or its default.
    const childPage = list ? undefined : (own ?? table.sizes[coordinate]);
    const types = isAbstractType(named) ? schema.getPossibleTypes(named) : [named as GraphQLObjectType];
    let children: Cost = { values: 0, work: 0 };
    for (const type of types) {
      const c = selectionCost(type, nodes, childPage);
      // An abstract type costs its costliest possible type.
      if (c.values + c.work > children.values + children.work) children = c;
    }
    return { values: 1 + size * children.values, work: weight + children.work };
  }

  const root = fieldsCost(rootType, collectFields(schema, fragments, variables as Record<string, unknown>, rootType, operation.selectionSet), undefined);
  return root.values + root.work;
}

/** The fragments of a document by name, as graphql-js's field collection takes them. */
export function fragmentsOf(definitions: readonly { kind: string }[]): Record<string, FragmentDefinitionNode> {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[(d as FragmentDefinitionNode).name.value] = d as FragmentDefinitionNode;
  return fragments;
}

/** A cost as the refusal names it: exact while it is, then in powers of ten. */
export function formatCost(cost: number): string {
  return Number.isSafeInteger(cost) ? String(cost) : cost === Infinity ? 'an unbounded cost' : cost.toPrecision(3);
}
