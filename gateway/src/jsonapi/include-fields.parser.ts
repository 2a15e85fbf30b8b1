import { AppError } from '@inkwell/errors';
import type { ResourceSchema, ResourceSchemas } from './resource-schema.js';

/** Relationship paths to include, as a tree: `include=story,story.author` → `story → author`. */
export type IncludeTree = ReadonlyMap<string, IncludeTree>;

/** `fields[type]` of a request: the attribute and relationship names to return, per type. Types not named return their defaults. */
export type SparseFieldsets = ReadonlyMap<string, ReadonlySet<string>>;

type MutableTree = Map<string, MutableTree>;

/** The empty include tree. */
export const NO_INCLUDES: IncludeTree = new Map();

/**
 * Checks the include paths an endpoint offers against the schemas (at startup): every segment
 * must be a relationship of the type reached so far. Returns the set of offered paths with all
 * their prefixes (offering `story.author` offers `story`).
 */
export function compileIncludePaths(primary: ResourceSchema, paths: readonly string[], schemas: ResourceSchemas): ReadonlySet<string> {
  const offered = new Set<string>();
  for (const path of paths) {
    let schema: ResourceSchema | undefined = primary;
    const segments = path.split('.');
    segments.forEach((segment, index) => {
      const relationship = schema?.relationships?.[segment];
      if (relationship === undefined) throw new Error(`include path ${path}: ${schema?.type ?? '?'} has no relationship ${segment}`);
      schema = schemas.get(relationship.type);
      if (schema === undefined) throw new Error(`include path ${path}: type ${relationship.type} is not among the endpoint's types`);
      offered.add(segments.slice(0, index + 1).join('.'));
    });
  }
  return offered;
}

/**
 * Parses `include=a,b.c` (docs/api/lists.md, "Compound documents"). An empty value includes nothing. A path the endpoint
 * does not offer (`offered`, from compileIncludePaths) is 400 `invalid_include` with
 * `source.parameter: include`, naming the offered paths.
 */
export function parseInclude(value: string, offered: ReadonlySet<string>): IncludeTree {
  const root: MutableTree = new Map();
  if (value === '') return root;
  for (const path of value.split(',')) {
    if (!offered.has(path)) {
      const choices = offered.size === 0 ? 'This endpoint has no relationships to include.' : `Paths offered here: ${[...offered].join(', ')}.`;
      throw AppError.badParameter('include', `"${path}" cannot be included. ${choices}`, 'invalid_include');
    }
    let node = root;
    for (const segment of path.split('.')) {
      let child = node.get(segment);
      if (child === undefined) node.set(segment, (child = new Map()));
      node = child;
    }
  }
  return root;
}

/**
 * Parses `fields[<type>]=a,b` (docs/api/lists.md, "Sparse fieldsets") for one type of the endpoint. An empty value asks
 * for no attributes and no relationships. A type outside `schemas` or a name that is neither
 * an attribute nor a relationship of the type, or that the endpoint declared `unavailable`, is
 * 400 `invalid_fields` naming the parameter.
 */
export function parseFieldset(
  type: string,
  value: string,
  schemas: ResourceSchemas,
  unavailable?: { readonly fields: readonly string[]; readonly why: string },
): ReadonlySet<string> {
  const parameter = `fields[${type}]`;
  const schema = schemas.get(type);
  if (schema === undefined) {
    throw AppError.badParameter(parameter, `This endpoint returns no resources of type "${type}"; it returns ${[...schemas.keys()].join(', ')}.`, 'invalid_fields');
  }
  if (value === '') return new Set();
  const names = value.split(',');
  for (const name of names) {
    if (!schema.attributes.includes(name) && schema.relationships?.[name] === undefined) {
      throw AppError.badParameter(parameter, `"${name}" is not a field of ${type}.`, 'invalid_fields');
    }
    if (unavailable?.fields.includes(name)) throw AppError.badParameter(parameter, `"${name}" is not available here: ${unavailable.why}`, 'invalid_fields');
  }
  return new Set(names);
}
