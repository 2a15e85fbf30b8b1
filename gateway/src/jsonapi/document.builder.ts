/** The media type of every JSON:API response (docs/api/foundation.md, "Documents"). */
export const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';

/** A JSON value as it may appear in attributes and meta. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** `{ type, id }` naming one resource; `id` is always a string (docs/api/foundation.md, "Documents"). */
export interface ResourceIdentifier {
  readonly type: string;
  readonly id: string;
}

/**
 * A relationship of a resource: to-one (`ResourceIdentifier | null`) or to-many (array), and
 * where the type declares it, `links.related`: the related resource's API URL.
 */
export interface Relationship {
  readonly data: ResourceIdentifier | null | readonly ResourceIdentifier[];
  readonly links?: { readonly related: string };
}

/**
 * A JSON:API resource object (docs/api/foundation.md, "Documents"). Attribute names are snake_case. `relationships` is
 * left out when the type has none; `links.self` is present on every type with a GET-by-id
 * endpoint and absent on the others (docs/api/foundation.md, "Documents").
 */
export interface ResourceObject {
  readonly id: string;
  readonly type: string;
  readonly attributes: { readonly [name: string]: JsonValue };
  readonly relationships?: { readonly [name: string]: Relationship };
  /** `self`, and further links of the type (a story's downloads: docs/api/stories.md, "Downloads"). */
  readonly links?: { readonly self: string; readonly [name: string]: string };
}

/** A single-resource top-level document: `{ data, included?, links: { self } }`. */
export interface ResourceDocument {
  readonly data: ResourceObject | null;
  readonly included?: readonly ResourceObject[];
  readonly links: { readonly self: string };
}

/** One entry of an error document (docs/api/foundation.md, "Errors"); `status` is the HTTP status as a string. */
export interface ErrorObject {
  readonly status: string;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly source?: { readonly pointer: string } | { readonly parameter: string } | { readonly header: string };
  /** `about`: the page about the code (`/docs/errors/<code>`, docs/api/foundation.md). */
  readonly links?: { readonly about: string };
}

/** An error top-level document: `{ errors: [...] }`, never with `data`. */
export interface ErrorDocument {
  readonly errors: readonly ErrorObject[];
}

/**
 * The links of a collection (docs/api/foundation.md, "Documents"): `next` is absent on the last page; cursor lists
 * have no `prev`/`last`; page-numbered lists have `prev` (absent on page 1) and `last`.
 */
export interface CollectionLinks {
  readonly self: string;
  readonly first: string;
  readonly prev?: string;
  readonly next?: string;
  readonly last?: string;
}

/** A collection top-level document: `{ data: [...], included?, links, meta? }` (built by collection.document.ts). */
export interface CollectionDocument {
  readonly data: readonly ResourceObject[];
  readonly included?: readonly ResourceObject[];
  readonly links: CollectionLinks;
  readonly meta?: { readonly [key: string]: JsonValue };
}

/**
 * A document of only `meta` and `links.self`: the answer of an action that changes many
 * resources at once and reports counts (POST /users/:id/notifications/read).
 */
export interface MetaDocument {
  readonly meta: { readonly [key: string]: JsonValue };
  readonly links: { readonly self: string };
}

/** Any top-level document the API sends. */
export type JsonApiDocument = ResourceDocument | CollectionDocument | ErrorDocument | MetaDocument;

/**
 * Builds a resource object. Passing no relationships (or an empty record) leaves the member
 * out; `self` is the resource's own API URL, left out when undefined.
 */
export function resourceObject(
  type: string,
  id: string,
  attributes: ResourceObject['attributes'],
  options: { relationships?: ResourceObject['relationships']; self?: string; links?: Readonly<Record<string, string>> } = {},
): ResourceObject {
  const relationships = options.relationships;
  const hasRelationships = relationships !== undefined && Object.keys(relationships).length > 0;
  return {
    id,
    type,
    attributes,
    ...(hasRelationships ? { relationships } : {}),
    ...(options.self === undefined ? {} : { links: { self: options.self, ...options.links } }),
  };
}

/**
 * Builds the document of one resource. `self` is the URL that produced the document (the
 * request URL, so `/users/me` stays `/users/me`), `included` is sent only when non-empty and
 * holds each related resource once (deduplicated by type and id, first occurrence wins).
 */
export function resourceDocument(data: ResourceObject | null, self: string, included: readonly ResourceObject[] = []): ResourceDocument {
  if (included.length === 0) return { data, links: { self } };
  return { data, included: uniqueResources(included), links: { self } };
}

function uniqueResources(resources: readonly ResourceObject[]): ResourceObject[] {
  const seen = new Set<string>();
  const unique: ResourceObject[] = [];
  for (const resource of resources) {
    const key = `${resource.type}\u0000${resource.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(resource);
  }
  return unique;
}

/**
 * Formats an instant as ISO 8601 in UTC with `Z` (docs/api/foundation.md, "Transport and routing"): whole seconds print without a
 * fraction (`2026-11-21T19:00:00Z`), other instants with milliseconds. Unset (`null`,
 * `undefined`), invalid dates and the Unix epoch itself print as `null`: an unset date must
 * never reach a client as 1970-01-01.
 */
export function apiDate(date: Date | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  const time = date.getTime();
  if (Number.isNaN(time) || time === 0) return null;
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}
