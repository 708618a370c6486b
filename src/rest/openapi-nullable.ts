import { isListType, isNonNullType, isObjectType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';

/** An OpenAPI 3.0 schema object, as far as nullability needs to see it. */
export type SchemaObject = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  items?: SchemaObject;
  nullable?: boolean;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  [key: string]: unknown;
};

/**
 * The schema of a value that may also be null. OpenAPI 3.0's `nullable` only counts beside a
 * `type` (and an `enum` must list null too); next to a `$ref` it is ignored, so a nullable record
 * is one of the record or a null-only schema of the record's type.
 */
export function nullableSchema(s: SchemaObject, schemas: Record<string, SchemaObject>): SchemaObject {
  if (s.$ref) {
    const target = schemas[s.$ref.replace('#/components/schemas/', '')];
    return { oneOf: [s, { type: target?.type ?? 'object', nullable: true, enum: [null] }] };
  }
  return { ...s, nullable: true, ...(s.enum ? { enum: [...s.enum, null] } : {}) };
}

/** `s` (SOFA's schema of a value of GraphQL type `type`) with null allowed wherever the type allows it. */
export function withNullability(s: SchemaObject, type: GraphQLOutputType, schemas: Record<string, SchemaObject>): SchemaObject {
  const inner = isNonNullType(type) ? type.ofType : type;
  const items = isListType(inner) && s.items ? { ...s, items: withNullability(s.items, inner.ofType, schemas) } : s;
  return isNonNullType(type) ? items : nullableSchema(items, schemas);
}

/**
 * SOFA writes a nullable GraphQL field as a property left out of `required`, with the type of its
 * non-null values: that says the key may be missing, not that its value may be null, so a client
 * generated from the document (or a validator) refuses `"lastSung": null`. An answer carries every
 * field it selects, null or not; so each property of an output type whose GraphQL field can be
 * null is marked `nullable` and listed in `required`. Nullability is read from the GraphQL schema
 * itself, never from a list kept by hand, so it cannot drift from what the resolvers may return.
 */
export function markNullableFields(schemas: Record<string, SchemaObject>, graphql: GraphQLSchema): void {
  for (const [name, component] of Object.entries(schemas)) {
    const type = graphql.getType(name);
    if (!isObjectType(type) || !component.properties) continue;
    const fields = type.getFields();
    for (const [prop, s] of Object.entries(component.properties)) {
      const field = fields[prop];
      if (!field) continue;
      component.properties[prop] = withNullability(s, field.type, schemas);
      if (!isNonNullType(field.type) && !component.required?.includes(prop)) {
        component.required = [...(component.required ?? []), prop];
      }
    }
  }
}
