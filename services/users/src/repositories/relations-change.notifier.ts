import type { Logger } from '@inkwell/logging';
import type { Redis } from '@inkwell/redis';
import { relationsGenerations, RELATIONS_MAX_AGE_MS } from '@inkwell/relations';

/** Tells the processes that keep copies of a user's blocks and mutes that they changed. */
export interface RelationsChangeNotifier {
  /** Called after a change of `userId`'s relations commits, before it is answered; never throws. */
  changed(userId: string): Promise<void>;
}

/**
 * Bumps the user's relations generation in Redis (docs/api/safety.md, "One source of truth"),
 * so that no gateway or service serves its copy on the next request. A failed bump is logged:
 * copies are then served at most RELATIONS_MAX_AGE_MS longer.
 */
export class RedisRelationsChangeNotifier implements RelationsChangeNotifier {
  readonly #generations;

  constructor(
    redis: Redis,
    private readonly logger: Logger,
  ) {
    this.#generations = relationsGenerations(redis);
  }

  async changed(userId: string): Promise<void> {
    try {
      await this.#generations.bump(userId);
    } catch (error) {
      this.logger.error({ err: error, userId }, `could not announce a change of blocks or mutes; copies of them expire within ${RELATIONS_MAX_AGE_MS} ms`);
    }
  }
}
