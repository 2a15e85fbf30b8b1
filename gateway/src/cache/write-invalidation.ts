import type { RouteDefinition } from '../routing/route.types.js';
import type { Generations } from '@inkwell/redis';
import type { CacheKey, PublicResourceCache } from './public-resource.cache.js';

/** Which cache entry a write under a path template changes: the story or user the path names. */
function keyOf(path: string, params: Readonly<Record<string, string>>): CacheKey | undefined {
  const id = params.id;
  if (id === undefined) return undefined;
  if (path.startsWith('/stories/:id')) return `story:${id}`;
  if (path.startsWith('/users/:id')) return `user:${id}`;
  return undefined;
}

/**
 * Wraps every write route under `/stories/:id` and `/users/:id` so that, before it answers, this
 * process drops the public cache entry of the story or user it changed and every gateway's entry
 * stops being served (its generation is bumped in Redis; docs/api/foundation.md, "Caching at the
 * edge"), without waiting for the event. The entry is also dropped when the write fails, since a
 * timeout may still have committed it.
 */
export function withWriteInvalidation(routes: readonly RouteDefinition[], cache: PublicResourceCache, generations: Generations): RouteDefinition[] {
  return routes.map((route) => {
    if (route.method === 'GET' || !(route.path.startsWith('/stories/:id') || route.path.startsWith('/users/:id'))) return route;
    return {
      ...route,
      async handler(request) {
        const key = keyOf(route.path, request.params);
        try {
          return await route.handler(request);
        } finally {
          if (key !== undefined) {
            cache.invalidate(key);
            // Before the answer: the caller's next request may reach another gateway.
            await generations.bump(key).catch(() => undefined);
          }
        }
      },
    };
  });
}
