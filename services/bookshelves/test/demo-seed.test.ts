import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookshelfPrivacy } from '@inkwell/proto/bookshelves';
import { seedDemoBookshelves, seedDemoBookshelvesWhenListed } from '../src/seed/demo.seed.js';
import { logger, startBookshelvesHarness, user, type BookshelvesHarness } from './harness.js';
import { storyMaker } from './stories.js';

describe('the bookshelves demo seed', () => {
  let h: BookshelvesHarness;
  const authors = ['11', '12', '13'];
  const storiesBy = new Map<string, string[]>();

  beforeAll(async () => {
    h = await startBookshelvesHarness('inkwell_test_bookshelves_seed');
    const stories = storyMaker(h);
    for (const author of authors) {
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push(await stories.published(author, `Story ${i} by ${author}`));
      storiesBy.set(author, ids);
    }
    await stories.draft('11', 'Not for shelves');
  });

  afterAll(async () => {
    await h?.close();
  });

  const seed = () => seedDemoBookshelves({ ...h.services, stories: h.services.directory, logger });
  const shelvesOf = async (owner: string) => (await h.client.listUserBookshelves({ userId: owner }, user(owner))).bookshelves;

  it('waits until the stories service lists stories (its search index is built after it starts), then gives up', async () => {
    expect(await seedDemoBookshelvesWhenListed({ ...h.services, stories: h.services.directory, logger }, { attempts: 2, intervalMs: 10 })).toBe(false);
    expect(await shelvesOf('11')).toEqual([]);
  });

  it('gives every demo author public and private shelves holding other authors’ published stories', async () => {
    // What the index consumer does in a running system: GET /stories lists them from now on.
    await h.stories.indexStories([...storiesBy.values()].flat());
    expect(await seedDemoBookshelvesWhenListed({ ...h.services, stories: h.services.directory, logger }, { attempts: 2, intervalMs: 10 })).toBe(true);
    for (const owner of authors) {
      const shelves = await shelvesOf(owner);
      expect(shelves.map((shelf) => [shelf.name, shelf.privacy])).toEqual([
        ['Favourites', BookshelfPrivacy.PUBLIC],
        ['Read later', BookshelfPrivacy.PRIVATE],
        ['Finished', BookshelfPrivacy.PUBLIC],
      ]);
      expect(shelves.map((shelf) => [shelf.numStories, shelf.numUnread])).toEqual([[4, 0], [3, 3], [2, 0]]);
      const own = new Set(storiesBy.get(owner));
      const published = new Set([...storiesBy.values()].flat());
      for (const shelf of shelves) {
        const { items } = await h.client.listBookshelfItems({ bookshelfId: shelf.id }, user(owner));
        for (const item of items) {
          expect(own.has(item.storyId)).toBe(false);
          expect(published.has(item.storyId)).toBe(true);
        }
      }
    }
  });

  it('changes nothing when it runs again', async () => {
    const before = (await h.pool.query('SELECT id, owner_id, num_items FROM bookshelves ORDER BY id')).rows;
    const items = (await h.pool.query('SELECT count(*)::int AS n FROM bookshelf_items')).rows;
    await seed();
    expect((await h.pool.query('SELECT id, owner_id, num_items FROM bookshelves ORDER BY id')).rows).toEqual(before);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM bookshelf_items')).rows).toEqual(items);
  });
});
