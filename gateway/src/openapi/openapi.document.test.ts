import { readdirSync, readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { API_V1_PREFIX } from '../jsonapi/api-links.js';
import { RouteTable } from '../routing/route-table.js';
import { defineRoute } from '../routing/route.types.js';
import { apiDocument, declaredApiRoutes } from './api.document.js';
import { endpointTable, withEndpointTable } from './endpoint-table.js';
import { buildOpenApiDocument } from './openapi.document.js';

type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  parameters: ({ name?: string; in?: string; schema?: Record<string, unknown>; $ref?: string })[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }>; headers?: Record<string, unknown> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Record<string, unknown>> } };

const routes = declaredApiRoutes();
const document = apiDocument(routes) as unknown as Document;
const operation = (method: string, path: string): Operation => {
  const found = document.paths[path]?.[method];
  if (found === undefined) throw new Error(`${method} ${path} is not in the document`);
  return found;
};
const errorCodes = (op: Operation, status: number): string[] => {
  const schema = op.responses[String(status)]?.content?.['application/vnd.api+json']?.schema as { properties: { errors: { items: { allOf: { properties?: { code?: { enum: string[] } } }[] } } } } | undefined;
  return schema?.properties.errors.items.allOf[1]?.properties?.code?.enum ?? [];
};
const queryNames = (op: Operation): string[] => op.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name as string);

describe('the OpenAPI document', () => {
  it('passes Redocly\'s recommended-strict rules with no problem at all', async () => {
    const config = await createConfig({ extends: ['recommended-strict'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    expect(problems.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
  });

  it('has every route of the route table, and nothing else', () => {
    const table = new RouteTable(API_V1_PREFIX, routes);
    const inDocument = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    const inTable = routes.map((route) => `${route.method} ${route.path.replace(/:([a-z_]+)/g, '{$1}')}`);
    expect(inDocument.sort()).toEqual(inTable.sort());
    for (const route of routes) expect(table.match(route.method, API_V1_PREFIX + route.path.replace(/:[a-z_]+/g, '1')).kind).toBe('found');
  });

  it('refuses to leave out a route that has no description', () => {
    const undocumented = defineRoute({ method: 'GET', path: '/secret', handler: () => Promise.resolve({ status: 204 }) });
    expect(() => buildOpenApiDocument([...routes, undocumented], { version: '1' })).toThrow(/GET \/secret has no doc/);
  });

  it('agrees with the endpoint table of docs/api/reference.md, which is generated from the same routes', () => {
    const page = readFileSync(new URL('../../../docs/api/reference.md', import.meta.url), 'utf8');
    expect(page, 'docs/api/reference.md is stale: run npm run docs:reference').toBe(withEndpointTable(page, endpointTable(routes)));
    const rows = [...page.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]+) \|/gm)];
    for (const [, method, path, scope] of rows) {
      const scopes = scope?.trim() === '—' ? [] : [scope?.trim()];
      // Routes only the user themself may call (first_party) refuse OAuth apps' tokens: personal tokens only.
      const firstParty = routes.find((route) => route.method === method && route.path === path)?.firstParty === true;
      const security = firstParty ? [{ personal_token: scopes }] : [{ oauth2: scopes }, { personal_token: scopes }];
      expect(operation(method!.toLowerCase(), path!.replace(/:([a-z_]+)/g, '{$1}')).security, `${method} ${path}`).toEqual(security);
    }
    expect(routes.filter((route) => route.firstParty === true).map((route) => `${route.method} ${route.path}`)).toEqual([
      'GET /users/:id/authorizations',
      'DELETE /users/:id/authorizations/:app_id',
      'GET /apps/:app_id/webhooks',
      'POST /apps/:app_id/webhooks',
      'GET /apps/:app_id/webhooks/:id',
      'PATCH /apps/:app_id/webhooks/:id',
      'DELETE /apps/:app_id/webhooks/:id',
      'POST /apps/:app_id/webhooks/:id/rotate-secret',
      'GET /apps/:app_id/webhooks/:id/deliveries',
      'POST /apps/:app_id/webhooks/:id/deliveries/redeliver',
    ]);
    expect(rows.length).toBe(routes.length);
  });

  it('has every endpoint that any page of docs/api mentions', () => {
    const table = new RouteTable(API_V1_PREFIX, routes);
    const pages = readdirSync(new URL('../../../docs/api/', import.meta.url)).filter((name) => name.endsWith('.md'));
    const mentioned = new Set<string>();
    for (const page of pages) {
      const text = readFileSync(new URL(`../../../docs/api/${page}`, import.meta.url), 'utf8');
      // "there is no GET /comments/:id" names an endpoint that does not exist.
      for (const match of text.matchAll(/(?<!no )\b(GET|POST|PUT|PATCH|DELETE) `?(\/[A-Za-z0-9/:_.-]*[A-Za-z0-9_])/g)) {
        const path = (match[2] as string).replace(/^\/api\/v1(?=\/)/, '');
        // Pages outside the JSON:API (sign-in, docs, Atom feeds, health) are not in the document.
        if (/^\/(oauth|signin|signup|signout|developer|authorizations|\.well-known|docs|feeds|healthz|readyz|metrics|openapi\.json)\b/.test(path)) continue;
        mentioned.add(`${match[1]} ${path}`);
      }
    }
    expect(mentioned.size).toBeGreaterThan(30);
    for (const endpoint of mentioned) {
      const [method, path] = endpoint.split(' ') as [string, string];
      expect(table.match(method, API_V1_PREFIX + path.replace(/:[a-z_]+/g, '1')).kind, endpoint).toBe('found');
    }
  });

  it('describes the story list: filters with their syntax, sort values, search, pages, include and fields', () => {
    const op = operation('get', '/stories');
    expect(queryNames(op)).toEqual(expect.arrayContaining(['filter[ids]', 'filter[num_words]', 'filter[date_published]', 'filter[tags]', 'filter[bookshelf]', 'filter[unread]', 'query', 'sort', 'page[size]', 'page[cursor]', 'include', 'fields[story]', 'fields[user]']));
    const status = op.parameters.find((parameter) => parameter.name === 'filter[status]');
    expect(status?.schema?.enum).toEqual(['complete', 'incomplete', 'on-hiatus', 'cancelled']);
    const sort = op.parameters.find((parameter) => parameter.name === 'sort');
    expect(sort?.schema?.enum).toEqual(expect.arrayContaining(['-hotness', 'num_words', '-relevance', 'date_added']));
    expect(sort?.schema?.default).toBe('-date_published');
    expect(op.parameters.find((parameter) => parameter.name === 'page[size]')?.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(errorCodes(op, 400)).toEqual(expect.arrayContaining(['invalid_parameter', 'invalid_sort', 'too_many_sort_fields', 'invalid_cursor', 'invalid_include', 'invalid_fields', 'unread_requires_owned_bookshelf']));
    expect(errorCodes(op, 403)).toContain('insufficient_scope');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429', '500', '503']));
  });

  it('describes the story list\'s facets parameter and its meta: the bounded total and the tag counts', () => {
    const op = operation('get', '/stories');
    expect(queryNames(op)).toContain('facets');
    const meta = (op.responses['200']?.content?.['application/vnd.api+json']?.schema as { properties: { meta: { properties: Record<string, Record<string, unknown>> } } }).properties.meta;
    expect(meta.properties.total).toMatchObject({ type: 'integer', maximum: 10_000 });
    expect(meta.properties.total_is_lower_bound).toMatchObject({ type: 'boolean' });
    expect(Object.keys(meta.properties.facets?.properties as object)).toEqual(['tags']);
    expect(queryNames(operation('get', '/users/{id}/stories'))).not.toContain('facets');
  });

  it('numbers the pages of the private-message list and requires read_pms', () => {
    const op = operation('get', '/users/{id}/private-messages');
    expect(queryNames(op)).toEqual(expect.arrayContaining(['page[number]', 'page[size]', 'filter[sent]', 'filter[received]']));
    expect(queryNames(op)).not.toContain('page[cursor]');
    expect(errorCodes(op, 403)).toEqual(['forbidden', 'insufficient_scope']);
    expect(errorCodes(op, 400)).toContain('invalid_filter_combination');
  });

  it('types attributes, marks heavy fields opt-in, and gives every POST an Idempotency-Key', () => {
    const story = document.components.schemas.StoryResource as { properties: { attributes: { properties: Record<string, Record<string, unknown>> } } };
    expect(story.properties.attributes.properties.date_published).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(story.properties.attributes.properties.num_words).toMatchObject({ type: 'integer' });
    const chapter = document.components.schemas.ChapterResource as { properties: { attributes: { properties: Record<string, { description?: string }> } } };
    expect(chapter.properties.attributes.properties.content?.description).toMatch(/opt-in/i);
    for (const [path, operations] of Object.entries(document.paths)) {
      const post = operations.post;
      if (post === undefined) continue;
      expect(post.parameters.some((parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey'), path).toBe(true);
      expect(errorCodes(post, 422)).toContain('idempotency_key_reused');
      expect(errorCodes(post, 409)).toContain('idempotency_key_in_use');
    }
  });

  it('states the blog service\'s tag limit and answers a new post with the post, never null', () => {
    const op = operation('post', '/blog-posts');
    const name = op.requestBody?.content['application/vnd.api+json']?.schema.$ref.split('/').pop() as string;
    const body = document.components.schemas[name] as { properties: { data: { properties: { attributes: { properties: Record<string, { description?: string }> } } } } };
    expect(body.properties.data.properties.attributes.properties.tags?.description).toMatch(/^At most 10 distinct tags of 1–50 characters/);
    const created = op.responses['201']?.content?.['application/vnd.api+json']?.schema as { properties: { data: Record<string, unknown> } };
    expect(created.properties.data).toEqual({ $ref: '#/components/schemas/BlogPostResource' });
    const followed = operation('post', '/users/{id}/following').responses['201']?.content?.['application/vnd.api+json']?.schema as { properties: { data: { oneOf?: unknown[] } } };
    expect(followed.properties.data.oneOf).toHaveLength(2);
  });

  it('gives every GET its ETag, If-None-Match and the 304 without a body', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      const get = operations.get;
      if (get === undefined) continue;
      expect(get.parameters.some((parameter) => parameter.$ref === '#/components/parameters/IfNoneMatch'), path).toBe(true);
      expect(get.responses['200']?.headers?.ETag, path).toEqual({ $ref: '#/components/headers/ETag' });
      expect(get.responses['304']?.headers?.ETag, path).toEqual({ $ref: '#/components/headers/ETag' });
      expect(get.responses['304']?.content, path).toBeUndefined();
    }
  });

  it('describes write bodies from the write specs: required attributes, enums, relationships', () => {
    const op = operation('post', '/stories');
    const name = op.requestBody?.content['application/vnd.api+json']?.schema.$ref.split('/').pop() as string;
    const body = document.components.schemas[name] as { properties: { data: { properties: { attributes: { required: string[]; properties: Record<string, Record<string, unknown>> }; relationships: { properties: Record<string, unknown> } } } } };
    expect(body.properties.data.properties.attributes.required).toEqual(['title']);
    expect(body.properties.data.properties.attributes.properties.status).toMatchObject({ enum: ['complete', 'incomplete', 'on-hiatus', 'cancelled'] });
    expect(Object.keys(body.properties.data.properties.relationships.properties)).toEqual(['tags']);
    expect(errorCodes(op, 422)).toContain('validation_failed');
    expect(errorCodes(op, 415)).toEqual(['unsupported_media_type']);
    expect(op.responses['201']?.headers).toHaveProperty('Location');
  });

  it('describes every webhook event type of docs/api/webhooks.md: the Standard Webhooks headers and the thin payload', () => {
    type Webhook = { post: { tags: string[]; parameters: { name: string; in: string; required: boolean }[]; requestBody: { content: { 'application/json': { schema: { required: string[]; properties: Record<string, { const?: string; properties?: Record<string, { const?: string }> }> } } } } } };
    const webhooks = (document as unknown as { webhooks: Record<string, Webhook> }).webhooks;
    const page = readFileSync(new URL('../../../docs/api/webhooks.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Event types'), page.indexOf('\n## ', page.indexOf('## Event types') + 1));
    const documented = [...section.matchAll(/^\| `([a-z_.]+)` \| [^|]+ \| `([a-z_]+)` \|/gm)].map(([, type, resource]) => ({ type, resource }));
    expect(documented.length).toBe(9);
    expect(Object.keys(webhooks)).toEqual(documented.map(({ type }) => type));
    for (const { type, resource } of documented) {
      const post = webhooks[type!]!.post;
      expect(post.tags).toEqual(['webhooks']);
      expect(post.parameters.map((parameter) => `${parameter.in} ${parameter.name} ${parameter.required}`)).toEqual(['header webhook-id true', 'header webhook-timestamp true', 'header webhook-signature true']);
      const schema = post.requestBody.content['application/json'].schema;
      expect(schema.required).toEqual(['id', 'type', 'timestamp', 'data']);
      expect(schema.properties.type?.const).toBe(type);
      expect(schema.properties.data?.properties?.type?.const, type).toBe(resource);
    }
  });
});
