import { create, toBinary } from '@bufbuild/protobuf';
import type { GrpcClient } from '@inkwell/grpc';
import { ListStoriesRequestSchema, type GetStoryResponse, type ListStoriesResponse, type StoriesService } from '@inkwell/proto/stories';
import { BatchGetUsersResponseSchema, GetUserResponseSchema, type BatchGetUsersResponse, type GetUserResponse, type User, type UsersService } from '@inkwell/proto/users';
import type { Generations } from '@inkwell/redis';
import type { ListAnswerCache } from './list-answer.cache.js';
import type { PublicResourceCache } from './public-resource.cache.js';

/**
 * The stories client with `getStory` answered from the public cache where that is safe
 * (docs/api/foundation.md, "Caching at the edge"): only published stories are stored, and the
 * author always reads through to the service (their own reads bypass the cache, so they see their
 * change at once and never someone else's view). Other callers see the same representation of a
 * published story whatever their scopes, and only while its generation is current (see
 * the generations in Redis: a write through any gateway ends it at once). Errors are never cached.
 *
 * With `lists`, `listStories` (GET /stories) without a bookshelf filter, the only caller-dependent
 * part of that list, is answered from that short-lived cache, keyed by the whole request (search
 * text, filters, sort, page size, position, facets): an answer lists published stories only, the
 * same for every caller except the authors on it (a story's `chapter_ids` include its drafts for
 * its author), so an answer read by one of its authors is not shared, and an author of a story on
 * a cached answer reads through to the service (their change shows on their next read).
 */
export function cachedStoriesClient(
  client: GrpcClient<typeof StoriesService>,
  cache: PublicResourceCache,
  generations: Generations,
  lists?: ListAnswerCache<ListStoriesResponse>,
): GrpcClient<typeof StoriesService> {
  return Object.assign(Object.create(client) as GrpcClient<typeof StoriesService>, {
    async listStories(request: Parameters<typeof client.listStories>[0], options: Parameters<typeof client.listStories>[1]): Promise<ListStoriesResponse> {
      const filter = request.filter;
      if (lists === undefined || filter?.bookshelfId !== undefined || filter?.unread !== undefined) return client.listStories(request, options);
      const userId = options?.caller?.userId;
      const authorOnIt = (response: ListStoriesResponse) => userId !== undefined && response.stories.some((story) => story.authorId === userId);
      const key = Buffer.from(toBinary(ListStoriesRequestSchema, create(ListStoriesRequestSchema, request))).toString('latin1');
      return lists.get(key, () => client.listStories(request, options), authorOnIt);
    },
    async getStory(request: Parameters<typeof client.getStory>[0], options: Parameters<typeof client.getStory>[1]): Promise<GetStoryResponse> {
      const key = `story:${request.id ?? ''}` as const;
      const caller = options?.caller;
      const generation = cache.isLive ? await generations.current(key) : undefined;
      if (generation === undefined) return client.getStory(request, options);
      const cached = cache.get<GetStoryResponse>(key, generation);
      if (cached !== undefined && caller?.userId !== cached.story?.authorId) return cached;
      const ticket = cache.begin();
      const response = await client.getStory(request, options);
      const story = response.story;
      if (story !== undefined && story.published && caller?.userId !== story.authorId) cache.store(key, response, ticket, generation);
      return response;
    },
  });
}

/**
 * The users client with `getUser` and `batchGetUsers` answered from the public cache for everyone
 * but the user themself (docs/api/foundation.md, "Caching at the edge"): `email` exists only on
 * one's own record, so one's own reads bypass the cache and a record carrying an e-mail is never
 * stored. A batch checks every generation in one Redis round trip and asks the service only for
 * the users it does not hold, storing each as `getUser` would (the same representation).
 */
export function cachedUsersClient(client: GrpcClient<typeof UsersService>, cache: PublicResourceCache, generations: Generations): GrpcClient<typeof UsersService> {
  return Object.assign(Object.create(client) as GrpcClient<typeof UsersService>, {
    async getUser(request: Parameters<typeof client.getUser>[0], options: Parameters<typeof client.getUser>[1]): Promise<GetUserResponse> {
      const id = request.id ?? '';
      const key = `user:${id}` as const;
      const self = options?.caller?.userId === id;
      const generation = !self && cache.isLive ? await generations.current(key) : undefined;
      if (generation === undefined) return client.getUser(request, options);
      const cached = cache.get<GetUserResponse>(key, generation);
      if (cached !== undefined) return cached;
      const ticket = cache.begin();
      const response = await client.getUser(request, options);
      const user = response.user;
      if (user !== undefined && user.id === id && user.email === undefined) cache.store(key, response, ticket, generation);
      return response;
    },
    async batchGetUsers(request: Parameters<typeof client.batchGetUsers>[0], options: Parameters<typeof client.batchGetUsers>[1]): Promise<BatchGetUsersResponse> {
      const ids = [...new Set(request.ids ?? [])];
      const self = options?.caller?.userId;
      const keys = ids.map((id) => `user:${id}` as const);
      const current = cache.isLive && (self === undefined || !ids.includes(self)) ? await generations.currentMany(keys) : undefined;
      if (current === undefined) return client.batchGetUsers(request, options);
      const held = new Map<string, User>();
      const missing: string[] = [];
      ids.forEach((id, i) => {
        const user = cache.get<GetUserResponse>(keys[i]!, current[i]!)?.user;
        if (user === undefined) missing.push(id);
        else held.set(id, user);
      });
      if (missing.length === 0) return create(BatchGetUsersResponseSchema, { users: ids.map((id) => held.get(id)!) });
      const ticket = cache.begin();
      const response = await client.batchGetUsers({ ...request, ids: missing }, options);
      const generationOf = new Map(ids.map((id, i) => [id, current[i]!]));
      for (const user of response.users) {
        const generation = generationOf.get(user.id);
        if (generation !== undefined && user.email === undefined) cache.store(`user:${user.id}`, create(GetUserResponseSchema, { user }), ticket, generation);
        held.set(user.id, user);
      }
      return { ...response, users: ids.filter((id) => held.has(id)).map((id) => held.get(id)!) };
    },
  });
}
