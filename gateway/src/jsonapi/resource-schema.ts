/** A relationship of a resource type: the type it points at and whether it is to-many. */
export interface RelationshipSchema {
  readonly type: string;
  readonly many: boolean;
  /** The relationship carries `links.related`, the related resource's API URL (for the API document). */
  readonly relatedLink?: boolean;
}

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses it) of one attribute's value in responses: what
 * the API document (gateway/src/openapi) says about the attribute. Build it with
 * {@link attributeTypes}.
 */
export type AttributeType = Readonly<Record<string, unknown>>;

/**
 * The static shape of one JSON:API resource type, as the list machinery needs it for `fields`,
 * `include` and write bodies: every attribute name, the heavy ones (opt-in: returned only when
 * named in `fields[type]`, docs/api/lists.md), and the relationships with their target types.
 * Declared once per type in `resources/<type>.resource.ts`.
 */
export interface ResourceSchema {
  readonly type: string;
  readonly attributes: readonly string[];
  /** The value type of each attribute (for the API document); absent only in unit-test schemas. */
  readonly attributeTypes?: Readonly<Record<string, AttributeType>>;
  /** Attributes returned only when `fields[type]` names them; each must be in `attributes`. */
  readonly heavyAttributes?: readonly string[];
  readonly relationships?: Readonly<Record<string, RelationshipSchema>>;
  /** One sentence on what the type is, for the API document. */
  readonly description?: string;
}

/** What defineResourceSchema takes: attributes with their types (or bare names, in unit tests). */
export interface ResourceSchemaInit<T extends string = string> {
  readonly type: T;
  readonly attributes: Readonly<Record<string, AttributeType>> | readonly string[];
  readonly heavyAttributes?: readonly string[];
  readonly relationships?: Readonly<Record<string, RelationshipSchema>>;
  readonly description?: string;
}

/** Resource schemas by type name. */
export type ResourceSchemas = ReadonlyMap<string, ResourceSchema>;

const nullable = (schema: AttributeType, isNullable: boolean | undefined): AttributeType =>
  isNullable === true ? { ...schema, type: [schema.type as string, 'null'] } : schema;

/**
 * Attribute value types for defineResourceSchema. `description` becomes the attribute's
 * description in the API document; `nullable` allows `null` (e.g. an unset date).
 */
export const attributeTypes = {
  /** A JSON string. */
  string(description?: string, options: { nullable?: boolean } = {}): AttributeType {
    return nullable({ type: 'string', ...(description === undefined ? {} : { description }) }, options.nullable);
  },
  /** Sanitised HTML rendered from the Markdown attribute `source` (read-only, docs/api/foundation.md). */
  html(source: string): AttributeType {
    return { type: 'string', description: `Sanitised HTML rendered from \`${source}\` (read-only).`, readOnly: true };
  },
  /** A JSON integer. */
  integer(description?: string, options: { nullable?: boolean; minimum?: number; maximum?: number } = {}): AttributeType {
    const bounds = { ...(options.minimum === undefined ? {} : { minimum: options.minimum }), ...(options.maximum === undefined ? {} : { maximum: options.maximum }) };
    return nullable({ type: 'integer', ...bounds, ...(description === undefined ? {} : { description }) }, options.nullable);
  },
  /** A JSON number. */
  number(description?: string): AttributeType {
    return { type: 'number', ...(description === undefined ? {} : { description }) };
  },
  /** `true` or `false`. */
  boolean(description?: string): AttributeType {
    return { type: 'boolean', ...(description === undefined ? {} : { description }) };
  },
  /** An ISO 8601 UTC date-time (docs/api/foundation.md); `nullable` when it may be unset. */
  dateTime(description?: string, options: { nullable?: boolean } = {}): AttributeType {
    return nullable({ type: 'string', format: 'date-time', ...(description === undefined ? {} : { description }) }, options.nullable);
  },
  /** One of `values`. */
  enumeration(values: readonly string[], description?: string, options: { nullable?: boolean } = {}): AttributeType {
    const schema = { type: 'string', enum: options.nullable === true ? [...values, null] : [...values], ...(description === undefined ? {} : { description }) };
    return nullable(schema, options.nullable);
  },
  /** An array of strings. */
  strings(description?: string): AttributeType {
    return { type: 'array', items: { type: 'string' }, ...(description === undefined ? {} : { description }) };
  },
} as const;

/**
 * Declares a resource schema, checking it at startup: heavy attributes must be attributes, and
 * no name may be both an attribute and a relationship (JSON:API shares one namespace of fields).
 * Attributes are declared with their types (`{ title: attributeTypes.string(), ... }`); bare
 * names are accepted for unit-test schemas, which never reach the API document.
 */
export function defineResourceSchema<const T extends string>(init: ResourceSchemaInit<T>): ResourceSchema & { readonly type: T } {
  const typed = !Array.isArray(init.attributes);
  const names: readonly string[] = typed ? Object.keys(init.attributes) : (init.attributes as readonly string[]);
  const attributes = new Set(names);
  if (attributes.size !== names.length) throw new Error(`${init.type}: an attribute is declared twice`);
  for (const heavy of init.heavyAttributes ?? []) {
    if (!attributes.has(heavy)) throw new Error(`${init.type}: heavy attribute ${heavy} is not an attribute`);
  }
  for (const name of Object.keys(init.relationships ?? {})) {
    if (attributes.has(name)) throw new Error(`${init.type}: ${name} is both an attribute and a relationship`);
  }
  return {
    type: init.type,
    attributes: names,
    ...(typed ? { attributeTypes: init.attributes as Readonly<Record<string, AttributeType>> } : {}),
    ...(init.heavyAttributes === undefined ? {} : { heavyAttributes: init.heavyAttributes }),
    ...(init.relationships === undefined ? {} : { relationships: init.relationships }),
    ...(init.description === undefined ? {} : { description: init.description }),
  };
}

/** A map of schemas by type; throws when a type appears twice. */
export function schemaMap(schemas: readonly ResourceSchema[]): ResourceSchemas {
  const map = new Map<string, ResourceSchema>();
  for (const schema of schemas) {
    if (map.has(schema.type)) throw new Error(`resource type ${schema.type} is listed twice`);
    map.set(schema.type, schema);
  }
  return map;
}
