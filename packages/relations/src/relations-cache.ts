import type { GrpcClient } from '@inkwell/grpc';
import type { GetRelationsResponse, RelationsService } from '@inkwell/proto/users';
import { Generations, type Redis } from '@inkwell/redis';

/** Longest a process serves its copy of a user's relations, even if a bump was lost. */
export const RELATIONS_MAX_AGE_MS = 10_000;
/** Users whose relations one process keeps at most (the least recently stored go first). */
export const RELATIONS_CACHE_MAX_USERS = 10_000;
/**
 * Ids (blocked users, muted authors and tags) one process keeps at most, in all: a user may hold
 * 2,000, so the user bound alone would allow hundreds of MB. About 40 MB.
 */
export const RELATIONS_CACHE_MAX_IDS = 500_000;

/**
 * The generation of each user's blocks and mutes in Redis (docs/api/safety.md, "One source of
 * truth"): the users service bumps a user's generation after each block, unblock, mute or unmute
 * commits and before it answers; readers ({@link cachedRelationsClient}) serve their copy only
 * while its generation is current.
 */
export function relationsGenerations(redis: Redis): Generations {
  return new Generations(redis, 'relations-generation', RELATIONS_MAX_AGE_MS);
}

interface Copy {
  readonly generation: string;
  readonly storedAt: number;
  readonly relations: GetRelationsResponse;
  /** How many ids it holds. */
  readonly ids: number;
}

/** Options of {@link cachedRelationsClient}. */
export interface RelationsCacheOptions {
  /** Users kept at most (default {@link RELATIONS_CACHE_MAX_USERS}). */
  readonly maxUsers?: number;
  /** Ids kept at most, over all users (default {@link RELATIONS_CACHE_MAX_IDS}). */
  readonly maxIds?: number;
  /** A monotonic clock in ms (default `performance.now`; tests pass their own). */
  readonly now?: () => number;
}

/**
 * The users service's RelationsService client with `getRelations` answered from this process's
 * copy while the user's generation in Redis is unchanged (one Redis read instead of a call and
 * three queries): a block or mute counts on the very next request everywhere, since the users
 * service bumps the generation before it answers. A copy is read in the generation fetched before
 * the call, so a change that lands during the call leaves it already outdated. While Redis cannot
 * answer, every read goes to the service. Other methods pass through.
 */
export function cachedRelationsClient(client: GrpcClient<typeof RelationsService>, generations: Generations, options: RelationsCacheOptions = {}): GrpcClient<typeof RelationsService> {
  const copies = new Map<string, Copy>();
  let heldIds = 0;
  const maxUsers = options.maxUsers ?? RELATIONS_CACHE_MAX_USERS;
  const maxIds = options.maxIds ?? RELATIONS_CACHE_MAX_IDS;
  const forget = (userId: string): void => {
    heldIds -= copies.get(userId)?.ids ?? 0;
    copies.delete(userId);
  };
  const now = options.now ?? (() => performance.now());
  return Object.assign(Object.create(client) as GrpcClient<typeof RelationsService>, {
    async getRelations(request: Parameters<typeof client.getRelations>[0], callOptions: Parameters<typeof client.getRelations>[1]): Promise<GetRelationsResponse> {
      const userId = request.userId ?? '';
      const generation = await generations.current(userId);
      if (generation === undefined) return client.getRelations(request, callOptions);
      const copy = copies.get(userId);
      if (copy !== undefined && copy.generation === generation && now() - copy.storedAt < RELATIONS_MAX_AGE_MS) return copy.relations;
      const relations = await client.getRelations(request, callOptions);
      const ids = relations.blockedUserIds.length + relations.mutedAuthorIds.length + relations.mutedTagIds.length;
      forget(userId);
      // The oldest stored go first, until both bounds leave room.
      for (const oldest of copies.keys()) {
        if (copies.size < maxUsers && heldIds + ids <= maxIds) break;
        forget(oldest);
      }
      if (ids <= maxIds) {
        copies.set(userId, { generation, storedAt: now(), relations, ids });
        heldIds += ids;
      }
      return relations;
    },
  });
}
