import { AppError, ErrorCode } from '@inkwell/errors';
import type { Redis } from '@inkwell/redis';

/** One post whose view may be counted: its id and when it was posted (part of the dedupe key). */
export interface ViewedPost {
  id: string;
  datePosted: Date;
}

/**
 * The per-reader, per-post view windows in Redis (`SET key 1 NX EX <window>`): the first read in
 * a window claims it, later reads find it taken. Keys name the post by id and posting time, so a
 * test database that restarts its ids never meets the windows of an earlier run.
 */
export class ViewRepository {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'blog:view:',
  ) {}

  /** Claims the window of each post for `readerKey`; returns the ids whose window was free. */
  async claim(posts: readonly ViewedPost[], readerKey: string, windowSeconds: number): Promise<string[]> {
    if (posts.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const post of posts) pipeline.set(this.key(post, readerKey), '1', 'EX', windowSeconds, 'NX');
    const results = await this.run(() => pipeline.exec());
    return posts.filter((_, index) => results?.[index]?.[1] === 'OK').map((post) => post.id);
  }

  /** Gives windows back (when counting failed after claiming), so a later read can count. */
  async release(posts: readonly ViewedPost[], readerKey: string): Promise<void> {
    if (posts.length === 0) return;
    await this.run(() => this.redis.del(...posts.map((post) => this.key(post, readerKey))));
  }

  private key(post: ViewedPost, readerKey: string): string {
    return `${this.prefix}${post.id}:${post.datePosted.getTime()}:${readerKey}`;
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new AppError(ErrorCode.UNAVAILABLE, 'Redis is unavailable.', { cause: error });
    }
  }
}
