import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { AppError, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import {
  BookshelfSchema,
  BookshelvesService,
  CreateBookshelfResponseSchema,
  DeleteBookshelfResponseSchema,
  GetBookshelfResponseSchema,
  ListUserBookshelvesResponseSchema,
  type Bookshelf,
} from '@inkwell/proto/bookshelves';
import { UpdateUserResponseSchema, UsersService } from '@inkwell/proto/users';
import { createRedis, type Redis } from '@inkwell/redis';
import { stackEnv } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import type { ResourceDocument } from '../jsonapi/document.builder.js';
import { createDocumentResponder, CursorStore, defineDocumentSpec, defineWriteSpec, writeValues } from '../jsonapi/index.js';
import { BOOKSHELF_WRITE, bookshelfOf, bookshelvesOf } from '../resources/bookshelf.resource.js';
import { USER_SCHEMA, userOf } from '../resources/user.resource.js';
import { BOOKSHELF_DOCUMENT, BOOKSHELF_LIST } from '../routes/bookshelves.routes.js';
import { declaredApiRoutes } from '../openapi/api.document.js';
import { routeKinds, type RouteKinds } from './route-kinds.js';
import { namedRpc, rpcOf } from './route-rpc.js';
import type { ApiRequest, ApiResponse, RouteDefinition } from './route.types.js';

const links = createApiLinks('https://api.inkwell.example');
const prefix = `test:route-kinds:${randomUUID()}:`;
let redis: Redis;
let route: RouteKinds;

beforeAll(() => {
  redis = createRedis(stackEnv().redisUrl);
  route = routeKinds({ links, documents: createDocumentResponder({ cursors: new CursorStore(redis, { ttlSeconds: 60, keyPrefix: prefix }), loaders: {} }) });
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** Runs a route's handler as the dispatcher would, for user 7. */
function call(definition: RouteDefinition, params: Record<string, string>, query = '', body?: unknown): Promise<ApiResponse> {
  const request: ApiRequest = {
    method: definition.method,
    params,
    query: new URLSearchParams(query),
    body,
    caller: { requestId: 'r1', scopes: ['write_bookshelves', 'write_user'], userId: '7' },
    selfLink: links.to(definition.path.replace(/:([a-z_]+)/g, (_, name: string) => params[name] ?? '') + (query === '' ? '' : `?${query}`)),
  };
  return definition.handler(request);
}

async function refusal(response: Promise<unknown>): Promise<string | undefined> {
  try {
    await response;
  } catch (error) {
    if (isAppError(error)) return error.details[0]?.reason ?? error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** The members of a collection document the list test reads. */
const pageOf = (response: ApiResponse) => response.document as unknown as { data: { id: string }[]; links: { next?: string } };

const shelf = (id: string): Bookshelf => create(BookshelfSchema, { id, userId: '7', name: `shelf ${id}` });

describe('route kinds', () => {
  it('a cursor list asks the backend for a page and continues from links.next where the backend said', async () => {
    const asked: unknown[] = [];
    const list = route.list({
      path: '/users/:id/bookshelves',
      doc: { summary: 'shelves' },
      params: { id: 'user' },
      query: BOOKSHELF_LIST,
      toRequest: ({ params }) => ({ userId: params.id }),
      rpc: namedRpc(BookshelvesService.method.listUserBookshelves, (request) => {
        asked.push(request);
        const page = asked.length === 1 ? { bookshelves: [shelf('1'), shelf('2')], nextAfter: 'after-2' } : { bookshelves: [shelf('3')], nextAfter: '' };
        return Promise.resolve(create(ListUserBookshelvesResponseSchema, page));
      }),
      toResources: bookshelvesOf,
    });
    const first = await call(list, { id: '7' }, 'page[size]=2');
    const next = pageOf(first).links.next;
    expect(next).toBeDefined();
    const second = await call(list, { id: '7' }, new URL(next as string).search.slice(1));
    expect(asked).toEqual([
      { userId: '7', pageSize: 2, after: '' },
      { userId: '7', pageSize: 2, after: 'after-2' },
    ]);
    expect(pageOf(second).data.map((resource) => resource.id)).toEqual(['3']);
    expect(pageOf(second).links.next).toBeUndefined();
  });

  it('a create answers 201 with Location and links.self of the new resource, or the request URL as links.self when so declared', async () => {
    const declaration = {
      path: '/users/:id/bookshelves',
      doc: { summary: 'create' },
      params: { id: 'user' },
      query: BOOKSHELF_DOCUMENT,
      body: BOOKSHELF_WRITE,
      toRequest: () => ({}),
      rpc: namedRpc(BookshelvesService.method.createBookshelf, () => Promise.resolve(create(CreateBookshelfResponseSchema, { bookshelf: shelf('12') }))),
      toResource: bookshelfOf,
    } as const;
    const body = { data: { type: 'bookshelf', attributes: { name: 'n' } } };
    const created = await call(route.create(declaration), { id: '7' }, '', body);
    expect(created.status).toBe(201);
    expect(created.headers).toEqual({ Location: links.to('/bookshelves/12') });
    expect((created.document as ResourceDocument).links.self).toBe(links.to('/bookshelves/12'));
    const atRequest = await call(route.create({ ...declaration, self: 'request' }), { id: '7' }, '', body);
    expect(atRequest.headers).toEqual({ Location: links.to('/bookshelves/12') });
    expect((atRequest.document as ResourceDocument).links.self).toBe(links.to('/users/7/bookshelves'));
  });

  it('an update whose id parameter is a user takes data.id "me", and lets the service refuse before a bad body is answered', async () => {
    const USER_WRITE = defineWriteSpec({ resource: USER_SCHEMA, attributes: { bio: writeValues.string() } });
    const sent: unknown[] = [];
    const update = (beforeBodyRefusal?: () => Promise<unknown>) =>
      route.update({
        path: '/users/:id',
        doc: { summary: 'update' },
        params: { id: 'user' },
        query: defineDocumentSpec({ resource: USER_SCHEMA }),
        body: USER_WRITE,
        toRequest: ({ params, body }) => ({ id: params.id, bio: body.attributes.bio }),
        rpc: namedRpc(UsersService.method.updateUser, (request) => {
          sent.push(request);
          return Promise.resolve(create(UpdateUserResponseSchema));
        }),
        toResource: userOf,
        ...(beforeBodyRefusal === undefined ? {} : { beforeBodyRefusal }),
      });
    expect(await refusal(call(update(), { id: '7' }, '', { data: { type: 'user', id: 'me', attributes: { bio: 'b' } } }))).toBe('not_found');
    expect(sent).toEqual([{ id: '7', bio: 'b' }]);
    expect(await refusal(call(update(), { id: '7' }, '', { data: { type: 'user', id: '8', attributes: { bio: 'b' } } }))).toBe('conflict');
    const forbidden = () => Promise.reject(AppError.forbidden('not yours'));
    expect(await refusal(call(update(forbidden), { id: '7' }, '', { data: { type: 'user', id: '8' } }))).toBe('forbidden');
    expect(sent).toHaveLength(1);
  });

  it('a command checks the query it declares before calling, and answers 204', async () => {
    const calls: unknown[] = [];
    const remove = route.command({
      method: 'DELETE',
      path: '/bookshelves/:id',
      doc: { summary: 'delete' },
      checkedQuery: BOOKSHELF_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: namedRpc(BookshelvesService.method.deleteBookshelf, (request) => {
        calls.push(request);
        return Promise.resolve(create(DeleteBookshelfResponseSchema));
      }),
    });
    expect(await refusal(call(remove, { id: '3' }, 'include=nope'))).toBe('invalid_include');
    expect(calls).toEqual([]);
    expect(await call(remove, { id: '3' })).toEqual({ status: 204 });
    expect(calls).toEqual([{ id: '3' }]);
  });
});

describe('route access', () => {
  const getShelf = namedRpc(BookshelvesService.method.getBookshelf, () => Promise.resolve(create(GetBookshelfResponseSchema, { bookshelf: shelf('3') })));
  const deleteShelf = namedRpc(BookshelvesService.method.deleteBookshelf, () => Promise.resolve(create(DeleteBookshelfResponseSchema)));
  const read = { path: '/bookshelves/:id', doc: { summary: 'read' }, query: BOOKSHELF_DOCUMENT, toRequest: () => ({}), toResource: bookshelfOf } as const;
  const remove = { method: 'DELETE', path: '/bookshelves/:id', doc: { summary: 'delete' }, toRequest: () => ({}) } as const;

  it('a route needs the scope and the signed-in user its RPC declares, and nothing where the RPC declares nothing', () => {
    const removal = route.command({ ...remove, rpc: deleteShelf });
    expect([removal.scope, removal.requiresUser]).toEqual(['write_bookshelves', true]);
    const reading = route.read({ ...read, rpc: getShelf });
    expect([reading.scope, reading.requiresUser]).toEqual([undefined, undefined]);
  });

  it('an entry may add a requirement its RPC does not declare, but not restate one it does', () => {
    const reading = route.read({ ...read, scope: 'read_bookshelves', rpc: getShelf });
    expect([reading.scope, reading.requiresUser]).toEqual(['read_bookshelves', undefined]);
    expect(() => route.command({ ...remove, scope: 'write_bookshelves', rpc: deleteShelf })).toThrow(/restates the access that inkwell\.bookshelves\.v1\.BookshelvesService\.DeleteBookshelf declares/);
    expect(() => route.command({ ...remove, requiresUser: true, rpc: deleteShelf })).toThrow(/restates/);
  });

  it('the API routes take their access from the RPCs they call', () => {
    const routes = declaredApiRoutes();
    const access = (method: string, path: string) => {
      const found = routes.find((candidate) => candidate.method === method && candidate.path === path);
      return found && [found.scope, found.requiresUser];
    };
    expect(access('POST', '/stories/:id/comments')).toEqual(['write_comments', true]);
    expect(access('GET', '/users/:id/private-messages')).toEqual(['read_pms', true]);
    expect(access('PATCH', '/private-messages/:id')).toEqual(['read_pms', true]);
    expect(access('GET', '/stories/:id/comments')).toEqual([undefined, undefined]);
  });

  it('rpcOf calls the method of the typed client', async () => {
    const asked: unknown[] = [];
    const client = {
      getBookshelf: (request: unknown, options: unknown) => {
        asked.push(request, options);
        return Promise.resolve(create(GetBookshelfResponseSchema));
      },
    } as unknown as GrpcClient<typeof BookshelvesService>;
    const getBookshelf = rpcOf(client, BookshelvesService.method.getBookshelf);
    expect(getBookshelf.method).toBe(BookshelvesService.method.getBookshelf);
    const caller = { requestId: 'r1', scopes: [], userId: '7' };
    await getBookshelf({ id: '3' }, { caller });
    expect(asked).toEqual([{ id: '3' }, { caller }]);
  });
});
