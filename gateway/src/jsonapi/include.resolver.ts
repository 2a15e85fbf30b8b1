import type { CallerContext } from '@inkwell/grpc';
import type { ByteAllowance } from './byte-allowance.js';
import type { ResourceIdentifier, ResourceObject } from './document.builder.js';
import type { IncludeTree, SparseFieldsets } from './include-fields.parser.js';
import type { DocumentQuery } from './list-query.parser.js';
import type { ResourceSchemas } from './resource-schema.js';

/**
 * What a loader knows of the request: the caller (pass it to gRPC), the fieldsets (to fetch
 * heavy fields only when wanted) and the document's byte allowance (stop loading once it is used up).
 */
export interface LoadContext {
  readonly caller: CallerContext;
  readonly fields: SparseFieldsets;
  readonly allowance: ByteAllowance;
}

/**
 * Fetches resources of one type by id in ONE backend call (a batch RPC such as
 * BatchGetStories), mapped to resource objects with every relationship's linkage. Ids the
 * caller may not see, or that do not exist, are simply missing from the result.
 */
export type ResourceLoader = (ids: readonly string[], context: LoadContext) => Promise<readonly ResourceObject[]>;

/** The loader of every includable type, by type name. */
export type ResourceLoaders = Readonly<Record<string, ResourceLoader>>;

const key = (type: string, id: string): string => `${type}\u0000${id}`;

/**
 * Resolves the `include` tree of a request for its primary data (docs/api/lists.md, "Compound documents"): per include
 * path, the linkage of the parents is collected and the missing resources are fetched with one
 * loader call per relationship and depth (never one call per item), in parallel across
 * relationships. Returns the included resources, each once and never one that is already
 * primary data, in include order. Works on un-narrowed resources (linkage is needed even when
 * `fields` hides a relationship); narrow afterwards.
 */
export async function resolveIncludes(
  primary: readonly ResourceObject[],
  query: DocumentQuery,
  loaders: ResourceLoaders,
  context: LoadContext,
): Promise<ResourceObject[]> {
  if (query.include.size === 0 || primary.length === 0) return [];
  const known = new Map<string, ResourceObject>();
  for (const resource of primary) known.set(key(resource.type, resource.id), resource);
  const found = await expand(primary, query.spec.resource.type, query.include, { schemas: query.spec.schemas, loaders, context, known });

  const primaryKeys = new Set(primary.map((resource) => key(resource.type, resource.id)));
  const included: ResourceObject[] = [];
  for (const resource of found) {
    const k = key(resource.type, resource.id);
    if (primaryKeys.has(k)) continue;
    primaryKeys.add(k);
    included.push(resource);
  }
  return included;
}

interface Expansion {
  readonly schemas: ResourceSchemas;
  readonly loaders: ResourceLoaders;
  readonly context: LoadContext;
  readonly known: Map<string, ResourceObject>;
}

async function expand(parents: readonly ResourceObject[], parentType: string, tree: IncludeTree, expansion: Expansion): Promise<ResourceObject[]> {
  const schema = expansion.schemas.get(parentType);
  const branches = await Promise.all(
    [...tree].map(async ([name, subtree]) => {
      const relationship = schema?.relationships?.[name];
      if (relationship === undefined) throw new Error(`include: ${parentType} has no relationship ${name}`);
      const ids = linkedIds(parents, name, relationship.type);
      const missing = ids.filter((id) => !expansion.known.has(key(relationship.type, id)));
      if (missing.length > 0 && !expansion.context.allowance.exhausted) {
        const loader = expansion.loaders[relationship.type];
        if (loader === undefined) throw new Error(`include: no loader for type ${relationship.type}`);
        for (const resource of await loader(missing, expansion.context)) {
          const k = key(resource.type, resource.id);
          if (!expansion.known.has(k)) expansion.known.set(k, resource);
        }
      }
      const targets = ids.flatMap((id) => expansion.known.get(key(relationship.type, id)) ?? []);
      if (subtree.size === 0) return targets;
      return [...targets, ...(await expand(targets, relationship.type, subtree, expansion))];
    }),
  );
  return branches.flat();
}

/** The distinct ids of `type` that the parents' relationship `name` links to, in order of appearance. */
function linkedIds(parents: readonly ResourceObject[], name: string, type: string): string[] {
  const ids = new Set<string>();
  const add = (identifier: ResourceIdentifier | null): void => {
    if (identifier !== null && identifier.type === type) ids.add(identifier.id);
  };
  for (const parent of parents) {
    const data = parent.relationships?.[name]?.data;
    if (data === undefined) continue;
    if (Array.isArray(data)) (data as readonly ResourceIdentifier[]).forEach(add);
    else add(data as ResourceIdentifier | null);
  }
  return [...ids];
}
