import { SCOPES } from '@inkwell/auth-tokens';
import { z } from 'zod';
import { JSON_API_MEDIA_TYPE } from '../jsonapi/document.builder.js';
import { API_ERROR_CODES, type ApiErrorCode } from '../jsonapi/error.mapping.js';
import { API_V1_PREFIX } from '../jsonapi/api-links.js';
import type { DocumentSpec, ListSpec } from '../jsonapi/list-spec.js';
import { MAX_PAGE_NUMBER } from '../jsonapi/page.parser.js';
import { ID_PATTERN, unanchored } from '../jsonapi/proto-rules.js';
import type { AttributeType, ResourceSchema } from '../jsonapi/resource-schema.js';
import type { WriteSpec } from '../jsonapi/write-body.parser.js';
import { CLIENT_ID_PATTERN, type ParamKind, type RouteDefinition } from '../routing/route.types.js';
import { errorAboutPath } from '../jsonapi/error-links.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_REPLAY_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency/idempotency.rules.js';

/** A JSON object of the OpenAPI document. */
export type OpenApiObject = Record<string, unknown>;

/** What the document needs besides the routes. */
export interface OpenApiOptions {
  /** `info.version`: the API version (the path's major version plus the build). */
  readonly version: string;
  /** The OpenAPI 3.1 `webhooks`: the requests the API sends to its clients (docs/api/webhooks.md), with their tag. */
  readonly webhooks?: { readonly operations: OpenApiObject; readonly tag: OpenApiObject };
}

const REF = (name: string): OpenApiObject => ({ $ref: `#/components/schemas/${name}` });
const EXAMPLE_DATE = '2026-11-21T19:00:00Z';

/** Errors every API operation can answer: no or a bad token, rate limits, our failures. */
const COMMON_ERRORS: readonly ApiErrorCode[] = ['invalid_token', 'rate_limited', 'internal', 'unavailable'];

/**
 * Builds the OpenAPI 3.1 document of /api/v1 from the route table's declarations: each route's
 * method, path, parameter kinds, scope and `doc` (its list/document spec for the query string
 * and the response's primary type, its write spec for the body), the resource schemas'
 * attribute types, the filter kinds' syntax, and the one error table (docs/api/foundation.md).
 * Nothing in it is written by hand beyond the prose of `info`. Throws when a route lacks `doc`,
 * or a resource schema its specs reach lacks attribute types, so the document can never
 * silently leave an endpoint out.
 */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], options: OpenApiOptions): OpenApiObject {
  const builder = new DocumentBuilder();
  const paths: Record<string, Record<string, OpenApiObject>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([a-z_][a-z0-9_]*)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = builder.operation(route);
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Inkwell API',
      version: options.version,
      summary: 'The public REST API of Inkwell, a community story-publishing site.',
      description: INFO_DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Inkwell' },
      contact: { name: 'Inkwell API', url: '/docs' },
    },
    servers: [{ url: API_V1_PREFIX, description: 'This deployment (relative to the origin that serves the document).' }],
    tags: [...builder.tags(), ...(options.webhooks === undefined ? [] : [options.webhooks.tag])],
    security: [{ oauth2: [] }, { personal_token: [] }],
    paths: sortedPaths,
    ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks.operations }),
    components: {
      schemas: builder.schemas,
      headers: HEADERS,
      parameters: PARAMETERS,
      securitySchemes: securitySchemes(),
    },
  };
}

const INFO_DESCRIPTION = [
  'JSON:API 1.1 documents over HTTPS. Every request needs `Authorization: Bearer <token>`: an OAuth 2.0 access token',
  '(authorization code with PKCE for users, client credentials for an app alone) or a personal token.',
  'Lists, filters, sorting, pages, `include` and `fields` behave as docs/api/lists.md says; errors carry a stable `code`',
  'and `links.about` pointing at `/docs/errors/<code>`. Every response has `X-Request-Id`, `Cache-Control: private, no-cache` and',
  '`Vary: Authorization` (only the caller may keep it, revalidated before reuse) and, when the request was counted,',
  '`RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`. A known path with another method is `405` with `Allow`.',
  'POST requests take an optional `Idempotency-Key` (docs/api/foundation.md, "Idempotent POSTs").',
  'To try a request here, use **Authorize**: the authorization code flow signs you in through the docs client `inkwell-api-docs`',
  '(PKCE, no secret) and sends your requests with the token it gets (docs/api/reference.md, "Try it: Authorize").',
  'Browser apps may call the API from the web origins their app registered (docs/api/auth.md, "Browser apps (CORS)").',
  '`info.version` follows the versioning promise of docs/api/reference.md, "Versioning and deprecation": within v1 nothing is removed or',
  'changed incompatibly without a deprecation announced by `Deprecation` and `Sunset` headers. All pages: [the documentation](/docs/api).',
].join(' ');

class DocumentBuilder {
  readonly schemas: Record<string, OpenApiObject> = {
    ResourceIdentifier: {
      type: 'object',
      required: ['type', 'id'],
      properties: { type: { type: 'string' }, id: { type: 'string' } },
      additionalProperties: false,
    },
    ErrorObject: {
      type: 'object',
      required: ['status', 'code', 'title', 'detail', 'links'],
      properties: {
        status: { type: 'string', description: 'The HTTP status, as a string.' },
        code: { type: 'string', enum: Object.keys(API_ERROR_CODES), description: 'Stable snake_case code (docs/api/foundation.md).' },
        title: { type: 'string' },
        detail: { type: 'string' },
        source: {
          type: 'object',
          properties: {
            pointer: { type: 'string', description: 'JSON pointer into the request body.' },
            parameter: { type: 'string', description: 'The query parameter at fault.' },
            header: { type: 'string', description: 'The request header at fault.' },
          },
        },
        links: { type: 'object', required: ['about'], properties: { about: { type: 'string', format: 'uri-reference', description: 'The page about this code.' } } },
      },
    },
    CursorLinks: {
      type: 'object',
      required: ['self', 'first'],
      properties: { self: { type: 'string', format: 'uri' }, first: { type: 'string', format: 'uri' }, next: { type: 'string', format: 'uri', description: 'Absent on the last page.' } },
    },
    PageLinks: {
      type: 'object',
      required: ['self', 'first', 'last'],
      properties: {
        self: { type: 'string', format: 'uri' },
        first: { type: 'string', format: 'uri' },
        last: { type: 'string', format: 'uri' },
        prev: { type: 'string', format: 'uri', description: 'From page 2 on.' },
        next: { type: 'string', format: 'uri', description: 'Before the last page.' },
      },
    },
  };
  readonly #tags = new Set<string>();
  readonly #operationIds = new Set<string>();

  tags(): OpenApiObject[] {
    return [...this.#tags].sort().map((name) => ({ name, description: `Endpoints of ${name} resources.` }));
  }

  operation(route: RouteDefinition): OpenApiObject {
    const doc = route.doc;
    if (doc === undefined) throw new Error(`route ${route.method} ${route.path} has no doc: every route of the table appears in the API document`);
    const tag = route.path.split('/')[1] ?? 'api';
    this.#tags.add(tag);
    const operationId = operationIdOf(route);
    if (this.#operationIds.has(operationId)) throw new Error(`operationId ${operationId} is not unique`);
    this.#operationIds.add(operationId);

    const status = doc.status ?? (route.method === 'POST' ? 201 : route.method === 'DELETE' || route.method === 'PUT' ? 204 : 200);
    const errors = new Set<ApiErrorCode>(COMMON_ERRORS);
    const parameters: OpenApiObject[] = [{ $ref: '#/components/parameters/RequestId' }];
    const pathParams = [...route.path.matchAll(/:([a-z_][a-z0-9_]*)/g)].map((match) => match[1] as string);
    const kinds = (route.params ?? {}) as Record<string, ParamKind | undefined>;
    for (const name of pathParams) parameters.push(pathParameter(name, kinds[name] ?? 'id'));
    if (pathParams.length > 0) errors.add('not_found');
    if (route.scope !== undefined) errors.add('insufficient_scope');
    if (route.requiresUser === true || route.firstParty === true) errors.add('forbidden');

    const spec = doc.query;
    if (spec !== undefined) parameters.push(...this.#queryParameters(spec, errors));
    if (route.method === 'GET') parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
    if (route.method === 'POST') {
      parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
      for (const code of ['invalid_parameter', 'idempotency_key_reused', 'idempotency_key_in_use'] as const) errors.add(code);
    }

    const operation: OpenApiObject = {
      operationId,
      summary: doc.summary,
      ...(doc.description === undefined ? {} : { description: doc.description }),
      tags: [tag],
      security: securityOf(route),
      parameters,
    };
    if (doc.body !== undefined) {
      for (const code of ['invalid_body', 'conflict', 'payload_too_large', 'unsupported_media_type', 'validation_failed'] as const) errors.add(code);
      const creates = doc.bodyCreates ?? (route.method === 'POST' || route.method === 'PUT');
      if (creates) errors.add('forbidden');
      operation.requestBody = { required: true, content: { [JSON_API_MEDIA_TYPE]: { schema: this.#writeBody(operationId, doc.body, creates) }, 'application/json': { schema: REF(`${capitalise(operationId)}Request`) } } };
    }
    for (const code of doc.errors ?? []) errors.add(code);

    const responses: Record<string, OpenApiObject> = {};
    const successHeaders = successHeadersOf(route.method);
    if (status === 204) responses['204'] = { description: 'Done; no content.', headers: successHeaders };
    else if (doc.download !== undefined) {
      responses['200'] = {
        description: 'The file, streamed (chunked, no `Content-Length`); a transfer cut short is incomplete, never a shorter file.',
        headers: { ...successHeaders, 'Content-Disposition': { description: 'RFC 6266: `attachment` with an ASCII `filename` and the title as `filename*` (UTF-8).', schema: { type: 'string' } } },
        content: { [doc.download.mediaType.split(';')[0] as string]: { schema: { type: 'string', format: 'binary' } } },
      };
    } else {
      if (spec === undefined && doc.meta === undefined) throw new Error(`route ${route.method} ${route.path} answers ${status} but its doc names no query spec (the response's type) nor meta`);
      const schema = spec === undefined ? metaDocument(doc.meta ?? {}) : this.#responseDocument(spec, doc.nullableData === true);
      responses[String(status)] = {
        description: status === 201 ? 'Created.' : 'OK.',
        headers: status === 201 ? { ...successHeaders, Location: { $ref: '#/components/headers/Location' } } : successHeaders,
        content: { [JSON_API_MEDIA_TYPE]: { schema } },
      };
    }
    if (route.method === 'GET') responses['304'] = { description: 'Not Modified: `If-None-Match` names the current `ETag`; no body.', headers: successHeaders };
    for (const [httpStatus, codes] of groupByStatus(errors)) responses[String(httpStatus)] = errorResponse(httpStatus, codes);
    operation.responses = responses;
    return operation;
  }

  #queryParameters(spec: DocumentSpec, errors: Set<ApiErrorCode>): OpenApiObject[] {
    const parameters: OpenApiObject[] = [];
    const list = 'pagination' in spec ? (spec as ListSpec) : undefined;
    if (list !== undefined) {
      errors.add('invalid_parameter');
      for (const [name, kind] of Object.entries(list.filters)) {
        const doc = kind.doc;
        parameters.push({
          name: `filter[${name}]`,
          in: 'query',
          description: `Filter \`${name}\`: ${doc.syntax}.`,
          schema: { type: 'string', ...(doc.pattern === undefined ? {} : { pattern: doc.pattern }), ...(doc.enum === undefined ? {} : { enum: [...doc.enum] }) },
          example: doc.example,
        });
      }
      if (list.search !== undefined) {
        parameters.push({ name: 'query', in: 'query', description: 'Search text (trimmed; blank means no search).', schema: { type: 'string', maxLength: list.search.maxLength }, example: 'dragon' });
      }
      if (list.facets !== undefined) {
        parameters.push({
          name: 'facets',
          in: 'query',
          description: `Comma-separated counts to add to \`meta.facets\` for the whole list (every filter and \`query\` applied): ${list.facets.map((name) => `\`${name}\``).join(', ')}. May change from page to page.`,
          schema: { type: 'string' },
          example: list.facets[0],
        });
      }
      errors.add('invalid_sort');
      errors.add('too_many_sort_fields');
      if (list.sort !== undefined) {
        const values = list.sort.fields.flatMap((field) => [field, `-${field}`]);
        parameters.push({
          name: 'sort',
          in: 'query',
          description: `One sort field, \`-\` for descending.${list.sort.default === undefined ? ' Default: insertion order.' : ` Default: \`${list.sort.default}\`.`}${list.sort.relevance === undefined ? '' : ` \`${list.sort.relevance}\` needs \`query\`.`}`,
          schema: { type: 'string', enum: values, ...(list.sort.default === undefined ? {} : { default: list.sort.default }) },
        });
      }
      const { pagination } = list;
      parameters.push({ name: 'page[size]', in: 'query', description: 'Items per page.', schema: { type: 'integer', minimum: 1, maximum: pagination.maxSize, default: pagination.defaultSize } });
      if (pagination.kind === 'cursor') {
        errors.add('invalid_cursor');
        parameters.push({ name: 'page[cursor]', in: 'query', description: 'Opaque; take it from `links.next`. Bound to the query and the caller; lives at least one hour.', schema: { type: 'string' } });
      } else {
        parameters.push({ name: 'page[number]', in: 'query', description: 'Page number, from 1.', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_NUMBER, default: 1 } });
      }
    }
    if (spec.offeredIncludes.size > 0) {
      errors.add('invalid_include');
      const offered = [...spec.offeredIncludes].sort();
      parameters.push({ name: 'include', in: 'query', description: `Comma-separated relationship paths to include: ${offered.map((path) => `\`${path}\``).join(', ')}.`, schema: { type: 'string' }, example: offered[0] });
    }
    errors.add('invalid_fields');
    for (const schema of spec.schemas.values()) {
      const unavailable = new Set(spec.unavailableFields?.[schema.type]?.fields ?? []);
      const fields = [...schema.attributes, ...Object.keys(schema.relationships ?? {})].filter((name) => !unavailable.has(name));
      const heavy = (schema.heavyAttributes ?? []).filter((name) => !unavailable.has(name));
      parameters.push({
        name: `fields[${schema.type}]`,
        in: 'query',
        description: `Comma-separated fields of \`${schema.type}\` to return: ${fields.map((name) => `\`${name}\``).join(', ')}.${heavy.length > 0 ? ` Heavy fields (${heavy.map((name) => `\`${name}\``).join(', ')}) are returned only when named here.` : ''}`,
        schema: { type: 'string' },
      });
      this.#resource(schema);
    }
    return parameters;
  }

  /** The component schema of a resource type's objects; returns its reference. */
  #resource(schema: ResourceSchema): OpenApiObject {
    const name = `${pascal(schema.type)}Resource`;
    if (this.schemas[name] !== undefined) return REF(name);
    const types = schema.attributeTypes;
    if (types === undefined) throw new Error(`resource schema ${schema.type} has no attribute types`);
    const heavy = new Set(schema.heavyAttributes ?? []);
    const attributes: Record<string, AttributeType> = {};
    for (const attribute of schema.attributes) {
      const type = types[attribute] as AttributeType;
      attributes[attribute] = heavy.has(attribute) && type.description === undefined ? { ...type, description: 'Opt-in: only when named in `fields`.' } : type;
    }
    const relationships: Record<string, OpenApiObject> = {};
    for (const [relationship, target] of Object.entries(schema.relationships ?? {})) {
      const identifier = { allOf: [REF('ResourceIdentifier'), { properties: { type: { const: target.type } } }] };
      relationships[relationship] = {
        type: 'object',
        required: ['data'],
        properties: {
          data: target.many ? { type: 'array', items: identifier } : { oneOf: [identifier, { type: 'null' }] },
          ...(target.relatedLink === true ? { links: { type: 'object', required: ['related'], properties: { related: { type: 'string', format: 'uri', description: `The API URL of the ${target.type}.` } } } } : {}),
        },
      };
    }
    this.schemas[name] = {
      type: 'object',
      ...(schema.description === undefined ? {} : { description: schema.description }),
      required: ['type', 'id', 'attributes'],
      properties: {
        type: { const: schema.type },
        id: { type: 'string' },
        attributes: { type: 'object', properties: attributes, description: 'With `fields[type]`, only the fields named.' },
        ...(schema.relationships === undefined ? {} : { relationships: { type: 'object', properties: relationships } }),
        links: { type: 'object', properties: { self: { type: 'string', format: 'uri' } }, additionalProperties: { type: 'string', format: 'uri' } },
      },
      example: exampleResource(schema),
    };
    return REF(name);
  }

  #responseDocument(spec: DocumentSpec, nullableData: boolean): OpenApiObject {
    const primary = this.#resource(spec.resource);
    const others = [...spec.schemas.values()].filter((schema) => schema.type !== spec.resource.type).map((schema) => this.#resource(schema));
    const included = others.length === 0 ? undefined : { type: 'array', items: others.length === 1 ? others[0] : { oneOf: others } };
    if ('pagination' in spec) {
      const numbered = (spec as ListSpec).pagination.kind === 'page';
      // A list that declares meta members sends them on every page.
      const metaAlways = Object.keys((spec as ListSpec).meta ?? {}).length > 0;
      return {
        type: 'object',
        required: metaAlways ? ['data', 'links', 'meta'] : ['data', 'links'],
        properties: {
          data: { type: 'array', items: primary },
          ...(included === undefined ? {} : { included }),
          links: REF(numbered ? 'PageLinks' : 'CursorLinks'),
          meta: numbered ? { type: 'object', required: ['total'], properties: { total: { type: 'integer', minimum: 0 } } } : cursorListMeta(spec as ListSpec),
        },
      };
    }
    return {
      type: 'object',
      required: ['data', 'links'],
      properties: {
        data: nullableData ? { oneOf: [primary, { type: 'null' }] } : primary,
        ...(included === undefined ? {} : { included }),
        links: { type: 'object', required: ['self'], properties: { self: { type: 'string', format: 'uri' } } },
      },
    };
  }

  #writeBody(operationId: string, spec: WriteSpec, creates: boolean): OpenApiObject {
    const name = `${capitalise(operationId)}Request`;
    const attributes: Record<string, unknown> = {};
    for (const [attribute, valueSchema] of Object.entries(spec.attributes)) {
      const jsonSchema = z.toJSONSchema(valueSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
      delete jsonSchema.$schema;
      attributes[attribute] = jsonSchema;
    }
    const relationships: Record<string, unknown> = {};
    for (const [relationship, write] of Object.entries(spec.relationships ?? {})) {
      const identifier = { type: 'object', required: ['type', 'id'], properties: { type: { const: write.type }, id: { type: 'string' } } };
      relationships[relationship] = {
        type: 'object',
        required: ['data'],
        properties: { data: write.many ? { type: 'array', items: identifier, ...(write.maxItems === undefined ? {} : { maxItems: write.maxItems }) } : write.nullable === true ? { oneOf: [identifier, { type: 'null' }] } : identifier },
      };
    }
    const required = creates ? [...(spec.required ?? [])] : [];
    const requiredRelationships = creates ? [...(spec.requiredRelationships ?? [])] : [];
    const data: OpenApiObject = {
      type: 'object',
      required: creates ? ['type'] : ['type', 'id'],
      properties: {
        type: { const: spec.resource.type },
        ...(creates ? {} : { id: { type: 'string', description: 'Must equal the id in the path.' } }),
        attributes: { type: 'object', properties: attributes, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
        ...(Object.keys(relationships).length === 0 ? {} : { relationships: { type: 'object', properties: relationships, ...(requiredRelationships.length > 0 ? { required: requiredRelationships } : {}), additionalProperties: false } }),
      },
      ...(required.length > 0 || requiredRelationships.length > 0 ? { required: creates ? ['type', ...(required.length > 0 ? ['attributes'] : []), ...(requiredRelationships.length > 0 ? ['relationships'] : [])] : ['type', 'id'] } : {}),
    };
    this.schemas[name] = { type: 'object', required: ['data'], properties: { data }, example: { data: exampleWrite(spec, creates) } };
    return REF(name);
  }
}

function operationIdOf(route: RouteDefinition): string {
  const words = route.path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (segment.startsWith(':') ? `By${pascal(segment.slice(1))}` : pascal(segment)));
  return route.method.toLowerCase() + words.join('');
}

function pascal(text: string): string {
  return text
    .split(/[-_.]/)
    .map((word) => capitalise(word))
    .join('');
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function pathParameter(name: string, kind: ParamKind): OpenApiObject {
  if (kind === 'client') {
    return { name, in: 'path', required: true, description: "An app's OAuth client_id.", schema: { type: 'string', pattern: CLIENT_ID_PATTERN.source }, example: 'h1YBcQ0x9Qy6pTvZrXkW2A' };
  }
  return {
    name,
    in: 'path',
    required: true,
    description: kind === 'user' ? 'A user id, or `me` for the signed-in user.' : 'A numeric id.',
    schema: { type: 'string', pattern: kind === 'user' ? `^(${unanchored(ID_PATTERN)}|me)$` : ID_PATTERN.source },
    example: kind === 'user' ? 'me' : '1',
  };
}

function securityOf(route: RouteDefinition): OpenApiObject[] {
  const scopes = route.scope === undefined ? [] : [route.scope];
  // Only the user themself: an OAuth app's token is refused whatever its scopes.
  return route.firstParty === true ? [{ personal_token: scopes }] : [{ oauth2: scopes }, { personal_token: scopes }];
}

function groupByStatus(codes: ReadonlySet<ApiErrorCode>): [number, ApiErrorCode[]][] {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = API_ERROR_CODES[code].status;
    const list = byStatus.get(status) ?? [];
    list.push(code);
    byStatus.set(status, list);
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}

function errorResponse(status: number, codes: readonly ApiErrorCode[]): OpenApiObject {
  const sorted = [...codes].sort();
  const first = sorted[0] as ApiErrorCode;
  const headers: Record<string, unknown> = { ...STANDARD_HEADERS };
  if (status === 401 || status === 403) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWWAuthenticate' };
  if (status === 429) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
  return {
    description: `${API_ERROR_CODES[first].title}: \`code\` is ${sorted.map((code) => `\`${code}\``).join(', ')}.`,
    headers,
    content: {
      [JSON_API_MEDIA_TYPE]: {
        schema: {
          type: 'object',
          required: ['errors'],
          properties: { errors: { type: 'array', minItems: 1, items: { allOf: [REF('ErrorObject'), { properties: { code: { enum: sorted } } }] } } },
        },
        example: { errors: [{ status: String(status), code: first, title: API_ERROR_CODES[first].title, detail: API_ERROR_CODES[first].title + '.', links: { about: errorAboutPath(first) } }] },
      },
    },
  };
}

const STANDARD_HEADERS: Record<string, OpenApiObject> = {
  'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
  'Cache-Control': { $ref: '#/components/headers/CacheControl' },
  Vary: { $ref: '#/components/headers/Vary' },
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

/** The `meta` of a cursor list's page: the count and facets the list offers (docs/api/stories.md, "GET /stories"). */
function cursorListMeta(list: ListSpec): OpenApiObject {
  const properties: Record<string, OpenApiObject> = {};
  if (list.total !== undefined) {
    properties.total = { type: 'integer', minimum: 0, maximum: list.total.exactUpTo, description: `Matches in the whole list, exact up to ${list.total.exactUpTo}.` };
    properties.total_is_lower_bound = { type: 'boolean', description: `\`true\` when there are more than ${list.total.exactUpTo} (then \`total\` is ${list.total.exactUpTo}).` };
  }
  const always = Object.keys(list.meta ?? {});
  for (const [name, type] of Object.entries(list.meta ?? {})) properties[name] = type;
  if (list.facets !== undefined) {
    const counts = { type: 'object', additionalProperties: { type: 'integer', minimum: 1 }, description: 'Value (e.g. a tag id) → matching items, most first.' };
    properties.facets = { type: 'object', properties: Object.fromEntries(list.facets.map((name) => [name, counts])), description: 'Present when `facets` asked for some.' };
  }
  return { type: 'object', ...(always.length === 0 ? {} : { required: always }), properties };
}

/** The answer of an action that reports only counts: `meta` with every member of `members`, and `links.self`. */
function metaDocument(members: Readonly<Record<string, AttributeType>>): OpenApiObject {
  return {
    type: 'object',
    required: ['meta', 'links'],
    properties: {
      meta: { type: 'object', required: Object.keys(members), properties: members },
      links: { type: 'object', required: ['self'], properties: { self: { type: 'string', format: 'uri' } } },
    },
  };
}

/** The headers of a success: the standard ones, `ETag` on a GET (docs/api/foundation.md, "Caching at the edge"), the replay mark on a POST. */
function successHeadersOf(method: string): Record<string, OpenApiObject> {
  if (method === 'GET') return { ...STANDARD_HEADERS, ETag: { $ref: '#/components/headers/ETag' } };
  if (method === 'POST') return { ...STANDARD_HEADERS, [IDEMPOTENCY_REPLAY_HEADER]: { $ref: '#/components/headers/IdempotentReplayed' } };
  return STANDARD_HEADERS;
}

const HEADERS: Record<string, OpenApiObject> = {
  ETag: { description: 'A strong validator of the body (a quoted digest of its bytes); send it back in `If-None-Match`.', schema: { type: 'string' } },
  XRequestId: { description: 'The request id: the one the client sent (at most 128 of `[A-Za-z0-9._-]`) or a new one.', schema: { type: 'string' } },
  CacheControl: { description: 'Every API answer is the caller’s own: no shared cache may keep it, and a client revalidates it (`If-None-Match`) before reuse.', schema: { type: 'string', enum: ['private, no-cache'] } },
  Vary: { description: 'Every API answer depends on the token it was asked with.', schema: { type: 'string', enum: ['Authorization'] } },
  RateLimitLimit: { description: "The window's allowance (absent when the request was not counted).", schema: { type: 'integer' } },
  RateLimitRemaining: { description: 'Requests left in the window.', schema: { type: 'integer' } },
  RateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
  WWWAuthenticate: { description: 'The Bearer challenge (`error="invalid_token"` or `error="insufficient_scope", scope="<needed>"`).', schema: { type: 'string' } },
  Location: { description: 'The URL of the created resource.', schema: { type: 'string', format: 'uri' } },
  IdempotentReplayed: { description: '`true` when this answer is the stored answer of an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } },
};

const PARAMETERS: Record<string, OpenApiObject> = {
  RequestId: { name: 'X-Request-Id', in: 'header', description: 'Your id of the request, echoed in the response (at most 128 of `[A-Za-z0-9._-]`).', schema: { type: 'string', maxLength: 128 } },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    description: 'An `ETag` of an earlier answer (or `*`; weak tags compare equal): `304 Not Modified` without a body while the representation is unchanged.',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: IDEMPOTENCY_HEADER,
    in: 'header',
    description:
      'Makes a retried POST safe: for 24 hours the same key with the same body gets the first answer again (with `Idempotent-Replayed: true`), with another body `422 idempotency_key_reused`, and while the first request still runs `409 idempotency_key_in_use`. Keys are per caller; 5xx answers are not kept.',
    schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: '^[\\x21-\\x7E]+$' },
    example: '4f1c2a9e-7b1d-4c55-9a0e-2f6b9d3e8c11',
  },
};

function securitySchemes(): OpenApiObject {
  const scopes = { ...SCOPES } as Record<string, string>;
  return {
    oauth2: {
      type: 'oauth2',
      description: 'OAuth 2.0 (docs/api/auth.md): the authorization code grant with PKCE (`S256`, required for public clients) for users, and client credentials for an app alone (public data only). On this page, Authorize uses the public docs client `inkwell-api-docs` (no secret).',
      flows: {
        authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes },
        clientCredentials: { tokenUrl: '/oauth/token', scopes },
      },
    },
    personal_token: {
      type: 'http',
      scheme: 'bearer',
      description: 'A personal token made on the developer page (`/developer`), with the scopes chosen there.',
    },
  };
}

function exampleValue(type: AttributeType): unknown {
  if (Array.isArray(type.enum)) return type.enum[0];
  const kind = Array.isArray(type.type) ? (type.type[0] as string) : (type.type as string);
  if (type.format === 'date-time') return EXAMPLE_DATE;
  if (type.format === 'uri') return 'https://inkwell.example/example';
  if (type.format === 'uuid') return '6f1c0d2e-8a5b-4c1e-9a53-1b2f3e4d5c6a';
  if (kind === 'integer') return typeof type.minimum === 'number' ? Math.max(type.minimum, 1) : 1;
  if (kind === 'number') return 1.5;
  if (kind === 'boolean') return true;
  if (kind === 'array') return [type.items === undefined ? 'example' : exampleValue(type.items as AttributeType)];
  return 'Example text';
}

function exampleResource(schema: ResourceSchema): OpenApiObject {
  const attributes: Record<string, unknown> = {};
  for (const attribute of schema.attributes) {
    if (schema.heavyAttributes?.includes(attribute)) continue;
    attributes[attribute] = exampleValue(schema.attributeTypes?.[attribute] ?? {});
  }
  const relationships = Object.fromEntries(Object.entries(schema.relationships ?? {}).map(([name, target]) => [name, { data: target.many ? [{ type: target.type, id: '2' }] : { type: target.type, id: '2' } }]));
  return { type: schema.type, id: '1', attributes, ...(schema.relationships === undefined ? {} : { relationships }) };
}

function exampleWrite(spec: WriteSpec, creates: boolean): OpenApiObject {
  const names = creates && (spec.required ?? []).length > 0 ? spec.required ?? [] : Object.keys(spec.attributes).slice(0, 1);
  const attributes = Object.fromEntries(names.map((name) => [name, exampleValue(spec.resource.attributeTypes?.[name] ?? {})]));
  const relationships = Object.fromEntries(
    (spec.requiredRelationships ?? []).map((name) => {
      const write = spec.relationships?.[name];
      return [name, { data: write?.many === true ? [{ type: write.type, id: '1' }] : { type: write?.type ?? '', id: '1' } }];
    }),
  );
  return { type: spec.resource.type, ...(creates ? {} : { id: '1' }), attributes, ...(Object.keys(relationships).length === 0 ? {} : { relationships }) };
}
