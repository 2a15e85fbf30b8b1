import type { ResourceObject } from './document.builder.js';
import type { SparseFieldsets } from './include-fields.parser.js';
import type { ResourceSchema } from './resource-schema.js';

/**
 * Whether a response will carry field `name` of `schema`'s type: a type named in `fields[type]`
 * returns exactly the named fields; otherwise every field except the heavy attributes
 * (docs/api/lists.md, "Sparse fieldsets": heavy fields are opt-in). Routes use it to ask a backend for heavy data
 * (chapter content) only when it will be returned.
 */
export function wantsField(fields: SparseFieldsets, schema: ResourceSchema, name: string): boolean {
  const named = fields.get(schema.type);
  if (named !== undefined) return named.has(name);
  return !(schema.heavyAttributes ?? []).includes(name);
}

/**
 * Narrows a resource object to the fields the request asked for (see wantsField): attributes
 * and relationships not wanted are dropped, and the `relationships` member goes when none is
 * left. `id`, `type` and `links` always stay. A resource of a type without a schema is
 * returned unchanged.
 */
export function narrowResource(resource: ResourceObject, schema: ResourceSchema | undefined, fields: SparseFieldsets): ResourceObject {
  if (schema === undefined) return resource;
  const named = fields.get(schema.type);
  const heavy = schema.heavyAttributes ?? [];
  if (named === undefined && heavy.length === 0) return resource;
  const keep = (name: string): boolean => (named === undefined ? !heavy.includes(name) : named.has(name));

  const attributes: Record<string, ResourceObject['attributes'][string]> = {};
  for (const name in resource.attributes) {
    if (keep(name)) attributes[name] = resource.attributes[name] as ResourceObject['attributes'][string];
  }
  let relationships: Record<string, NonNullable<ResourceObject['relationships']>[string]> | undefined;
  if (resource.relationships !== undefined) {
    for (const name in resource.relationships) {
      if (!keep(name)) continue;
      relationships ??= {};
      relationships[name] = resource.relationships[name] as NonNullable<ResourceObject['relationships']>[string];
    }
  }
  return {
    id: resource.id,
    type: resource.type,
    attributes,
    ...(relationships === undefined ? {} : { relationships }),
    ...(resource.links === undefined ? {} : { links: resource.links }),
  };
}
