import type { Logger } from '@inkwell/logging';
import type { StoryState } from '@inkwell/known-stories';
import { READ_BOOKSHELVES } from '@inkwell/shelf-access';
import { READ_STORIES, type Privacy } from '../domain/bookshelf.js';
import type { ForwardedCaller, StoryDirectoryRepository } from '../repositories/story-directory.repository.js';
import type { BookshelfItemService } from '../services/bookshelf-item.service.js';
import type { BookshelfService } from '../services/bookshelf.service.js';

/** The shelves every demo user gets: how many stories each holds and how many of them are read. */
const DEMO_SHELVES: ReadonlyArray<{ name: string; description: string; privacy: Privacy; color: string; stories: number; read: number }> = [
  { name: 'Favourites', description: 'The stories I keep coming back to.', privacy: 'public', color: '#cc3333', stories: 4, read: 4 },
  { name: 'Read later', description: 'Saved for a quiet evening.', privacy: 'private', color: '#3366cc', stories: 3, read: 0 },
  { name: 'Finished', description: '', privacy: 'public', color: '#339966', stories: 2, read: 2 },
];

/** How many of the newest published stories the seed chooses from. */
const STORY_POOL = 100;

/** What the demo seed works with: the same services as the API, and the stories service. */
export interface DemoSeedDeps {
  shelves: BookshelfService;
  items: BookshelfItemService;
  stories: StoryDirectoryRepository;
  logger: Logger;
}

/**
 * The demo data of `npm run dev`: every author of the demo stories (the demo users) gets the
 * DEMO_SHELVES, public and private, holding other authors' published stories. Which stories exist
 * is asked of the stories service over gRPC (it seeds its demo stories before it reports SERVING,
 * and starts first), and items are added through the same rules as the API, so the local copy of
 * each story is recorded at once. A user who has any shelf already is left alone, so a second
 * start changes nothing.
 */
export async function seedDemoBookshelves(deps: DemoSeedDeps): Promise<boolean> {
  const requestId = 'bookshelves-demo-seed';
  const stories = await deps.stories.latestPublished(STORY_POOL, requestId);
  if (stories.length === 0) return false;
  const owners = [...new Set(stories.map((story) => story.authorId))].sort((a, b) => Number(a) - Number(b));
  for (const [index, owner] of owners.entries()) {
    const caller: ForwardedCaller = { requestId, userId: owner, scopes: [READ_BOOKSHELVES, READ_STORIES] };
    const existing = await deps.shelves.listUserBookshelves(owner, { pageSize: 1, after: '' }, caller);
    if (existing.shelves.length > 0) continue;
    const candidates = rotate(stories.filter((story) => story.authorId !== owner), index * 3);
    let next = 0;
    for (const spec of DEMO_SHELVES) {
      const shelf = await deps.shelves.createBookshelf(owner, spec, caller);
      for (const [position, story] of pick(candidates, next, spec.stories).entries()) {
        await deps.items.addBookshelfItem(shelf.id, story.storyId, position < spec.read, caller);
      }
      next += spec.stories;
    }
    deps.logger.info({ userId: owner, shelves: DEMO_SHELVES.length }, 'demo bookshelves ready');
  }
  return true;
}

/** How often, and how many times, {@link seedDemoBookshelvesWhenListed} asks again. */
export interface SeedRetry {
  readonly attempts: number;
  readonly intervalMs: number;
}

/**
 * Runs {@link seedDemoBookshelves} once the stories service lists published stories. On a fresh
 * machine the stories service builds its search index in the background after it starts
 * (docs/api/stories.md, "Search"), so GET /stories is empty or unavailable for a few seconds:
 * the seed asks again every `intervalMs`, at most `attempts` times, then gives up with a warning.
 * Resolves true when the shelves were seeded (or already there).
 */
export async function seedDemoBookshelvesWhenListed(deps: DemoSeedDeps, retry: SeedRetry = { attempts: 90, intervalMs: 2_000 }): Promise<boolean> {
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    try {
      if (await seedDemoBookshelves(deps)) return true;
    } catch (error) {
      deps.logger.debug({ err: error, attempt }, 'bookshelves demo seed not possible yet');
    }
    if (attempt < retry.attempts) await new Promise((resolve) => setTimeout(resolve, retry.intervalMs).unref());
  }
  deps.logger.warn({ attempts: retry.attempts }, 'no published stories listed by the stories service; the bookshelves demo seed gave up');
  return false;
}

/** `count` distinct stories taken cyclically from `stories`, starting at `start` (fewer when there are fewer). */
function pick(stories: StoryState[], start: number, count: number): StoryState[] {
  return Array.from({ length: Math.min(count, stories.length) }, (_, i) => stories[(start + i) % stories.length]!);
}

/** `stories` starting at `by` (wrapping), so that each owner shelves different stories. */
function rotate(stories: StoryState[], by: number): StoryState[] {
  if (stories.length === 0) return stories;
  const start = by % stories.length;
  return [...stories.slice(start), ...stories.slice(0, start)];
}
