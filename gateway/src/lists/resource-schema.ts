/** A relationship of a resource type: the type it points at and whether it is to-many. */
export interface RelationshipSchema {
  readonly type: string;
  readonly many: boolean;
}

/**
 * The static shape of one JSON:API resource type, as the list machinery needs it for `fields`,
 * `include` and write bodies: every attribute name, the heavy ones (opt-in: returned only when
 * named in `fields[type]`, contract §2), and the relationships with their target types.
 * Declared once per type in `resources/<type>.resource.ts`.
 */
export interface ResourceSchema {
  readonly type: string;
  readonly attributes: readonly string[];
  /** Attributes returned only when `fields[type]` names them; each must be in `attributes`. */
  readonly heavyAttributes?: readonly string[];
  readonly relationships?: Readonly<Record<string, RelationshipSchema>>;
}

/** Resource schemas by type name. */
export type ResourceSchemas = ReadonlyMap<string, ResourceSchema>;

/**
 * Declares a resource schema, checking it at startup: heavy attributes must be attributes, and
 * no name may be both an attribute and a relationship (JSON:API shares one namespace of fields).
 */
export function defineResourceSchema<const S extends ResourceSchema>(schema: S): S {
  const attributes = new Set(schema.attributes);
  if (attributes.size !== schema.attributes.length) throw new Error(`${schema.type}: an attribute is declared twice`);
  for (const heavy of schema.heavyAttributes ?? []) {
    if (!attributes.has(heavy)) throw new Error(`${schema.type}: heavy attribute ${heavy} is not an attribute`);
  }
  for (const name of Object.keys(schema.relationships ?? {})) {
    if (attributes.has(name)) throw new Error(`${schema.type}: ${name} is both an attribute and a relationship`);
  }
  return schema;
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
