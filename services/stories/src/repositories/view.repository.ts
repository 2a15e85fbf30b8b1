import type { Redis } from '@inkwell/redis';
import { AppError, ErrorCode } from '@inkwell/errors';

/** How long one reader's read of one chapter counts as the same view (docs/api/stories.md, "Counts, rating and hotness"). */
export const VIEW_WINDOW_SECONDS = 24 * 60 * 60;

/** Remembers in Redis who read which chapter recently, so a view is counted once per 24 hours. */
export class ViewRepository {
  constructor(private readonly redis: Redis, private readonly prefix = 'stories:view') {}

  /**
   * True exactly once per `reader` (e.g. `u:12`, `a:<app>`) and chapter within 24 hours: the
   * first caller sets the key (SET NX EX), later ones find it. UNAVAILABLE when Redis is down.
   */
  async firstReadWithinWindow(chapterId: string, reader: string): Promise<boolean> {
    try {
      const answer = await this.redis.set(`${this.prefix}:${chapterId}:${reader}`, '1', 'EX', VIEW_WINDOW_SECONDS, 'NX');
      return answer === 'OK';
    } catch (error) {
      throw new AppError(ErrorCode.UNAVAILABLE, 'The view counter is unavailable.', { cause: error });
    }
  }
}
