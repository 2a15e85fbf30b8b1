import type { GrpcClient } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { UsersService } from '@inkwell/proto/users';
import type { BulkLoadRepository } from '../repositories/bulk-load.repository.js';
import { generateStories } from './story.generator.js';

/** How many user ids the demo seed probes for authors (the demo users come first). */
const AUTHOR_PROBE = 50;

/**
 * The user ids among 1..50 that the users service knows: the demo seed's authors. The users
 * service seeds its demo users before it reports SERVING, and starts first. `users` calls as
 * the stories service itself (no API caller).
 */
export async function findDemoAuthors(users: GrpcClient<typeof UsersService>): Promise<string[]> {
  const found = await Promise.all(
    Array.from({ length: AUTHOR_PROBE }, (_, i) =>
      users.getUser({ id: String(i + 1) }, { caller: { requestId: 'stories-demo-seed', scopes: [] } }).then(
        (response) => response.user?.id,
        () => undefined,
      ),
    ),
  );
  return found.filter((id): id is string => id !== undefined);
}

/**
 * The demo data of `npm run dev`: `count` generated stories (a few drafts among them) by the
 * existing users, with their events, unless stories exist already. Running it twice changes nothing.
 */
export async function seedDemoStories(bulk: BulkLoadRepository, authors: readonly string[], count: number, logger: Logger): Promise<void> {
  if (count === 0 || (await bulk.countStories()) > 0) return;
  if (authors.length === 0) {
    logger.warn('no users to write demo stories; skipping the demo seed');
    return;
  }
  const first = await bulk.nextIds();
  const drafts = Math.max(1, Math.round(count * 0.05));
  const result = await bulk.load(
    generateStories({ published: count - drafts, drafts, firstStoryId: first.story, firstChapterId: first.chapter, authors, tags: await bulk.tags(), now: new Date() }),
    { rebuildIndexes: false, emitEvents: true, logger },
  );
  logger.info(result, 'demo stories ready');
}
