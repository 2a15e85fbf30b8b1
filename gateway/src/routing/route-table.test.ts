import { describe, expect, it } from 'vitest';
import { isStorageId, RouteTable } from './route-table.js';
import { defineRoute, type ApiResponse, type RouteDefinition } from './route.types.js';

const handler = async (): Promise<ApiResponse> => ({ status: 204 });
const route = (method: RouteDefinition['method'], path: string, params?: Record<string, 'id' | 'user' | 'client'>): RouteDefinition =>
  ({ method, path, params, handler }) as RouteDefinition;

const table = new RouteTable('/api/v1', [
  route('GET', '/users/:id', { id: 'user' }),
  route('PATCH', '/users/:id', { id: 'user' }),
  route('GET', '/users/:id/following', { id: 'user' }),
  route('POST', '/users/:id/following', { id: 'user' }),
  route('DELETE', '/users/:id/following/:following_id', { id: 'user' }),
  route('DELETE', '/users/:id/authorizations/:app_id', { id: 'user', app_id: 'client' }),
  route('GET', '/stories'),
  route('GET', '/stories/:id'),
  route('GET', '/stories/search/popular'),
]);

function found(method: string, path: string) {
  const match = table.match(method, path);
  if (match.kind !== 'found') throw new Error(`expected a match, got ${match.kind}`);
  return { pattern: match.route.pattern, values: match.values };
}

describe('RouteTable.match', () => {
  it('matches method and path and returns parameter values in order', () => {
    expect(found('GET', '/api/v1/users/42')).toEqual({ pattern: '/api/v1/users/:id', values: ['42'] });
    expect(found('DELETE', '/api/v1/users/42/following/7')).toEqual({ pattern: '/api/v1/users/:id/following/:following_id', values: ['42', '7'] });
    expect(found('GET', '/api/v1/stories')).toEqual({ pattern: '/api/v1/stories', values: [] });
  });

  it('accepts me where the parameter is a user, and only there', () => {
    expect(found('GET', '/api/v1/users/me').values).toEqual(['me']);
    expect(found('POST', '/api/v1/users/me/following').values).toEqual(['me']);
    expect(table.match('GET', '/api/v1/stories/me').kind).toBe('not_found');
    expect(table.match('DELETE', '/api/v1/users/me/following/me').kind).toBe('not_found');
  });

  it('accepts an OAuth client id where the parameter is a client, and nothing else there', () => {
    expect(found('DELETE', '/api/v1/users/me/authorizations/h1YBcQ0x9Qy6pTvZrXkW2A').values).toEqual(['me', 'h1YBcQ0x9Qy6pTvZrXkW2A']);
    expect(found('DELETE', '/api/v1/users/me/authorizations/a-b_C').values).toEqual(['me', 'a-b_C']);
    for (const id of ['a.b', 'a%20b', 'x'.repeat(65), 'a+b']) expect(table.match('DELETE', `/api/v1/users/me/authorizations/${id}`).kind, id).toBe('not_found');
  });

  it('answers 404 for non-numeric, signed, zero-padded, fractional and out-of-range ids', () => {
    for (const id of ['abc', '-1', '+1', '01', '0', '1.5', '1e3', '%31', '9223372036854775808', '99999999999999999999', ' 1']) {
      expect(table.match('GET', `/api/v1/users/${id}`).kind, id).toBe('not_found');
    }
    expect(found('GET', '/api/v1/users/9223372036854775807').values).toEqual(['9223372036854775807']);
  });

  it('answers 405 with the allowed methods in declaration order when only the method is wrong', () => {
    expect(table.match('POST', '/api/v1/users/1')).toEqual({ kind: 'method_not_allowed', allow: 'GET, PATCH', pattern: '/api/v1/users/:id' });
    expect(table.match('DELETE', '/api/v1/users/me/following')).toMatchObject({ kind: 'method_not_allowed', allow: 'GET, POST' });
    expect(table.match('HEAD', '/api/v1/stories')).toMatchObject({ kind: 'method_not_allowed', allow: 'GET' });
  });

  it('answers 404 for unknown paths, intermediate nodes and other prefixes', () => {
    for (const path of ['/api/v1', '/api/v1/', '/api/v1/nothing', '/api/v1/users', '/api/v1/users/1/unknown', '/api/v1/stories/search', '/api/v2/users/1', '/api/v1x/users/1', '/users/1', '/api/v1//users/1']) {
      expect(table.match('GET', path).kind, path).toBe('not_found');
    }
  });

  it('prefers literal segments and backtracks to parameters', () => {
    expect(found('GET', '/api/v1/stories/search/popular').pattern).toBe('/api/v1/stories/search/popular');
    expect(found('GET', '/api/v1/stories/12').pattern).toBe('/api/v1/stories/:id');
  });

  it('ignores one trailing slash', () => {
    expect(found('GET', '/api/v1/users/1/').values).toEqual(['1']);
  });
});

describe('RouteTable construction', () => {
  it('rejects duplicate routes', () => {
    expect(() => new RouteTable('/api/v1', [route('GET', '/stories'), route('GET', '/stories')])).toThrow(/declared twice/);
  });

  it('rejects two names or kinds for the same position', () => {
    expect(() => new RouteTable('/api/v1', [route('GET', '/stories/:id'), route('GET', '/stories/:story_id/chapters')])).toThrow(/clashes/);
    expect(() => new RouteTable('/api/v1', [route('GET', '/users/:id', { id: 'user' }), route('GET', '/users/:id/stories')])).toThrow(/clashes/);
  });

  it('rejects malformed paths and params for names the path lacks', () => {
    expect(() => new RouteTable('/api/v1', [route('GET', 'stories')])).toThrow(/malformed/);
    expect(() => new RouteTable('/api/v1', [route('GET', '/stories/')])).toThrow(/malformed/);
    expect(() => new RouteTable('/api/v1', [route('GET', '/stories/:id', { story: 'id' })])).toThrow(/lacks/);
  });

  it('infers parameter names from the path for handlers', () => {
    const definition = defineRoute({
      method: 'GET',
      path: '/users/:id/following/:following_id',
      params: { id: 'user' },
      handler: async ({ params }) => ({ status: params.id === params.following_id ? 409 : 204 }),
    });
    expect(definition.path).toBe('/users/:id/following/:following_id');
  });
});

describe('isStorageId', () => {
  it('accepts canonical positive int64 values only', () => {
    expect(['1', '42', '9223372036854775807'].every(isStorageId)).toBe(true);
    expect(['', '0', '007', '9223372036854775808', 'x1'].some(isStorageId)).toBe(false);
  });
});
