import { AppError, ErrorCode, type ErrorDetail } from '@inkwell/errors';
import type { z } from 'zod';
import type { ResourceSchema } from './resource-schema.js';

/** A writable relationship: its target type, to-one or to-many, and the schema of identifier ids. */
export interface RelationshipWriteSpec {
  readonly type: string;
  readonly many: boolean;
  readonly id: z.ZodType<string, unknown>;
  /** To-one only: whether `{ "data": null }` (clearing it) is allowed. */
  readonly nullable?: boolean;
  /** To-many only: most identifiers accepted (after removing duplicates). */
  readonly maxItems?: number;
}

/** The zod schema of each writable attribute. */
export type AttributeWriteSpecs = Readonly<Record<string, z.ZodType<unknown, unknown>>>;
/** The writable relationships by name. */
export type RelationshipWriteSpecs = Readonly<Record<string, RelationshipWriteSpec>>;

/**
 * What a POST/PATCH body of one resource type may carry (docs/api/foundation.md, "Resource types"; docs/api/lists.md, "Write bodies"). Attributes and
 * relationships of `resource` that are not listed are read-only (422 if sent); names that are
 * not fields of the type at all are 422 too.
 */
export interface WriteSpec<A extends AttributeWriteSpecs = AttributeWriteSpecs, R extends RelationshipWriteSpecs = RelationshipWriteSpecs> {
  readonly resource: ResourceSchema;
  readonly attributes: A;
  readonly relationships?: R;
  /** Attributes a create must carry. */
  readonly required?: readonly (keyof A & string)[];
  /** Relationships a create must carry. */
  readonly requiredRelationships?: readonly (keyof R & string)[];
}

/** The validated content of a write body: only the members the client sent. */
export interface WriteBody<A extends AttributeWriteSpecs, R extends RelationshipWriteSpecs> {
  readonly attributes: { readonly [K in keyof A]?: z.output<A[K]> };
  /** To-many: the ids (deduplicated, in order sent); to-one: the id, or null when cleared. */
  readonly relationships: { readonly [K in keyof R]?: R[K]['many'] extends true ? readonly string[] : string | null };
}

/**
 * Declares the write rules of a type, checked at startup: every writable attribute and
 * relationship must exist in the resource schema with the same target type.
 */
export function defineWriteSpec<const A extends AttributeWriteSpecs, const R extends RelationshipWriteSpecs = Record<never, never>>(spec: WriteSpec<A, R>): WriteSpec<A, R> {
  const { resource } = spec;
  for (const name of Object.keys(spec.attributes)) {
    if (!resource.attributes.includes(name)) throw new Error(`${resource.type}: writable attribute ${name} is not an attribute`);
  }
  for (const [name, relationship] of Object.entries(spec.relationships ?? {})) {
    const declared = resource.relationships?.[name];
    if (declared === undefined || declared.type !== relationship.type || declared.many !== relationship.many) {
      throw new Error(`${resource.type}: writable relationship ${name} does not match the schema`);
    }
  }
  for (const name of spec.required ?? []) if (!Object.hasOwn(spec.attributes, name)) throw new Error(`${resource.type}: required ${name} is not writable`);
  return spec;
}

/**
 * Validates a POST body that creates one resource (JSON:API 1.1 and docs/api/lists.md, "Write bodies"):
 * not `{ "data": { ... } }` → 400 `invalid_body`; `data.type` other than the spec's → 409
 * `conflict`; a client-chosen `data.id` → 403 `forbidden`; then every attribute and
 * relationship problem at once as 422 `validation_failed` with `source.pointer`
 * (`/data/attributes/<name>`, `/data/relationships/<name>/...`): read-only or unknown names,
 * values failing their schema, missing required members.
 */
export function parseCreateBody<A extends AttributeWriteSpecs, R extends RelationshipWriteSpecs>(spec: WriteSpec<A, R>, body: unknown): WriteBody<A, R> {
  const data = resourceObjectOf(body, spec.resource.type);
  if (data.id !== undefined) throw bodyError('forbidden', '/data/id', 'Ids are chosen by the server: leave data.id out when creating.');
  return validateMembers(spec, data, true);
}

/**
 * Validates a PATCH body for the resource `id` (from the URL): as parseCreateBody, except that
 * `data.id` is required (400 `invalid_body` without it) and must equal `id` (409 `conflict`),
 * and nothing is required: members left out stay unchanged.
 */
export function parseUpdateBody<A extends AttributeWriteSpecs, R extends RelationshipWriteSpecs>(spec: WriteSpec<A, R>, body: unknown, id: string): WriteBody<A, R> {
  const data = resourceObjectOf(body, spec.resource.type);
  if (data.id === undefined) throw bodyError('invalid_body', '/data/id', 'data.id is required when updating.');
  if (typeof data.id !== 'string') throw bodyError('invalid_body', '/data/id', 'data.id must be a string.');
  if (data.id !== id) throw bodyError('conflict', '/data/id', `data.id "${data.id}" does not match the URL's id "${id}".`);
  return validateMembers(spec, data, false);
}

type JsonObject = Record<string, unknown>;

const DATA_MEMBERS = new Set(['type', 'id', 'attributes', 'relationships', 'meta', 'links']);

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function resourceObjectOf(body: unknown, type: string): JsonObject {
  if (!isObject(body) || !Object.hasOwn(body, 'data')) throw bodyError('invalid_body', '', 'The body must be a JSON:API document: { "data": { "type": ..., "attributes": { ... } } }.');
  const data = body.data;
  if (!isObject(data)) throw bodyError('invalid_body', '/data', 'data must be a single resource object.');
  for (const member of Object.keys(data)) {
    if (!DATA_MEMBERS.has(member)) throw bodyError('invalid_body', `/data/${escapePointer(member)}`, `"${member}" is not a member of a resource object.`);
  }
  if (typeof data.type !== 'string') throw bodyError('invalid_body', '/data/type', 'data.type is required.');
  if (data.type !== type) throw bodyError('conflict', '/data/type', `This endpoint takes resources of type "${type}", not "${data.type}".`);
  for (const member of ['attributes', 'relationships'] as const) {
    if (data[member] !== undefined && !isObject(data[member])) throw bodyError('invalid_body', `/data/${member}`, `data.${member} must be an object.`);
  }
  for (const [name, relationship] of Object.entries((data.relationships ?? {}) as JsonObject)) checkRelationshipStructure(name, relationship);
  return data;
}

/**
 * JSON:API's structure of one relationship (docs/api/lists.md, "Write bodies", step 1): an object
 * with `data`, which is null, a resource identifier object or an array of them. Anything else
 * is not a JSON:API document: 400 `invalid_body` at the relationship's pointer. Whether the
 * linkage fits the relationship (to-one or to-many, its type and id) is step 4's 422.
 */
function checkRelationshipStructure(name: string, value: unknown): void {
  const pointer = `/data/relationships/${escapePointer(name)}`;
  if (!isObject(value) || !Object.hasOwn(value, 'data')) throw bodyError('invalid_body', pointer, `relationships.${name} must be a relationship object { "data": ... }.`);
  const linkage = value.data;
  if (linkage === null) return;
  const identifiers = Array.isArray(linkage) ? linkage : [linkage];
  identifiers.forEach((identifier, index) => {
    if (!isObject(identifier)) throw bodyError('invalid_body', `${pointer}/data${Array.isArray(linkage) ? `/${index}` : ''}`, `relationships.${name}.data must hold resource identifier objects { "type", "id" }.`);
  });
}

/** The JSON pointer of the first string holding U+0000 within `value` (below `pointer`), if any. */
function nulCharacterAt(value: unknown, pointer: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? pointer : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulCharacterAt(value[i], `${pointer}/${i}`);
      if (found !== undefined) return found;
    }
  } else if (isObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      const found = nulCharacterAt(member, `${pointer}/${escapePointer(key)}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function validateMembers<A extends AttributeWriteSpecs, R extends RelationshipWriteSpecs>(spec: WriteSpec<A, R>, data: JsonObject, creating: boolean): WriteBody<A, R> {
  const problems: ErrorDetail[] = [];
  const problem = (pointer: string, detail: string): void => {
    problems.push({ reason: 'validation_failed', pointer, detail });
  };
  const schema = spec.resource;

  const attributes: Record<string, unknown> = {};
  const sentAttributes = (data.attributes ?? {}) as JsonObject;
  for (const [name, value] of Object.entries(sentAttributes)) {
    const pointer = `/data/attributes/${escapePointer(name)}`;
    const valueSchema = Object.hasOwn(spec.attributes, name) ? spec.attributes[name] : undefined;
    if (valueSchema === undefined) {
      if (schema.attributes.includes(name)) problem(pointer, `${name} is read-only.`);
      else if (schema.relationships?.[name] !== undefined) problem(pointer, `${name} is a relationship: send it under data.relationships.`);
      else problem(pointer, `${name} is not an attribute of ${schema.type}.`);
      continue;
    }
    // No text of the API can hold U+0000 (the stores cannot keep it): refused at its pointer.
    const nul = nulCharacterAt(value, pointer);
    if (nul !== undefined) {
      problem(nul, `${name} must not contain the NUL character (U+0000).`);
      continue;
    }
    const parsed = valueSchema.safeParse(value);
    if (parsed.success) attributes[name] = parsed.data;
    else for (const issue of parsed.error.issues) problem(pointer + issue.path.map((part) => `/${escapePointer(String(part))}`).join(''), `${name} ${issue.message}.`);
  }

  const relationships: Record<string, unknown> = {};
  const sentRelationships = (data.relationships ?? {}) as JsonObject;
  for (const [name, value] of Object.entries(sentRelationships)) {
    const pointer = `/data/relationships/${escapePointer(name)}`;
    const relationship = spec.relationships !== undefined && Object.hasOwn(spec.relationships, name) ? spec.relationships[name] : undefined;
    if (relationship === undefined) {
      if (schema.relationships?.[name] !== undefined) problem(pointer, `${name} is read-only.`);
      else if (schema.attributes.includes(name)) problem(pointer, `${name} is an attribute: send it under data.attributes.`);
      else problem(pointer, `${name} is not a relationship of ${schema.type}.`);
      continue;
    }
    const linkage = parseLinkage(name, relationship, value, pointer, problem);
    if (linkage !== undefined) relationships[name] = linkage;
  }

  if (creating) {
    for (const name of spec.required ?? []) {
      if (!Object.hasOwn(sentAttributes, name)) problem(`/data/attributes/${escapePointer(name)}`, `${name} is required.`);
    }
    for (const name of spec.requiredRelationships ?? []) {
      if (!Object.hasOwn(sentRelationships, name)) problem(`/data/relationships/${escapePointer(name)}`, `${name} is required.`);
    }
  }
  if (problems.length > 0) throw new AppError(ErrorCode.INVALID_ARGUMENT, problems[0]?.detail ?? 'The body is invalid.', { details: problems });
  return { attributes, relationships } as WriteBody<A, R>;
}

/** Checks `{ "data": ... }` of one relationship; reports problems and returns undefined when there are any. */
function parseLinkage(
  name: string,
  relationship: RelationshipWriteSpec,
  value: unknown,
  pointer: string,
  problem: (pointer: string, detail: string) => void,
): string | null | string[] | undefined {
  if (!isObject(value) || !Object.hasOwn(value, 'data')) {
    problem(pointer, `${name} must be a relationship object { "data": ${relationship.many ? '[ ... ]' : '{ "type", "id" }'} }.`);
    return undefined;
  }
  const data = value.data;
  if (!relationship.many) {
    if (data === null) {
      if (relationship.nullable === true) return null;
      problem(`${pointer}/data`, `${name} cannot be empty.`);
      return undefined;
    }
    return identifierOf(name, relationship, data, `${pointer}/data`, problem);
  }
  if (!Array.isArray(data)) {
    problem(`${pointer}/data`, `${name} is to-many: data must be an array of { "type": "${relationship.type}", "id" } (empty to clear).`);
    return undefined;
  }
  const ids: string[] = [];
  let valid = true;
  data.forEach((item, index) => {
    const id = identifierOf(name, relationship, item, `${pointer}/data/${index}`, problem);
    if (id === undefined) valid = false;
    else if (!ids.includes(id)) ids.push(id);
  });
  if (!valid) return undefined;
  if (relationship.maxItems !== undefined && ids.length > relationship.maxItems) {
    problem(`${pointer}/data`, `${name} takes at most ${relationship.maxItems} items.`);
    return undefined;
  }
  return ids;
}

function identifierOf(name: string, relationship: RelationshipWriteSpec, value: unknown, pointer: string, problem: (pointer: string, detail: string) => void): string | undefined {
  if (!isObject(value)) {
    problem(pointer, `${name} needs resource identifiers { "type": "${relationship.type}", "id" }.`);
    return undefined;
  }
  if (value.type !== relationship.type) {
    problem(`${pointer}/type`, `${name} links resources of type "${relationship.type}".`);
    return undefined;
  }
  const parsed = relationship.id.safeParse(value.id);
  if (!parsed.success) {
    problem(`${pointer}/id`, `${name} id ${parsed.error.issues[0]?.message ?? 'is invalid'}.`);
    return undefined;
  }
  return parsed.data;
}

/** Escapes a member name for a JSON pointer (RFC 6901). */
function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

function bodyError(reason: 'invalid_body' | 'conflict' | 'forbidden', pointer: string, detail: string): AppError {
  const code = reason === 'invalid_body' ? ErrorCode.INVALID_ARGUMENT : reason === 'conflict' ? ErrorCode.ABORTED : ErrorCode.PERMISSION_DENIED;
  return new AppError(code, detail, { details: [{ reason, ...(pointer === '' ? {} : { pointer }), detail }] });
}
