import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '@inkwell/pg';
import { SortDirection, StorySortField, StoryStatus } from '@inkwell/proto/stories';
import { BookshelfCopyRepository } from '../src/repositories/bookshelf-copy.repository.js';
import { BookshelfCopyService } from '../src/services/bookshelf-copy.service.js';
import { author, caller, startStories, type StoriesHarness } from './harness.js';
import { listAll, prng, type ListRequest } from './list-helpers.js';
import { eventually } from '@inkwell/testing';

const SHELF = '701';
const OWNER = '811';
const WRITER = '812';
const writer = author(WRITER);
const app = () => caller({ appId: 'shelf-copy-test-app' });
const random = prng(11);

/**
 * Shelf lists sorted by date_added filter on the shelf items' copy of their stories' columns
 * (docs/api/stories.md, "Bookshelves in story lists"): every change of a story through the API
 * must show in them at once, exactly as in the same list under another sort, which reads the
 * stories themselves.
 */
describe('shelf lists follow changes of the stories on the shelf', () => {
  let h: StoriesHarness;
  let copy: BookshelfCopyService;
  let nextItem = 9000;

  async function shelve(storyId: string): Promise<void> {
    const item = { id: String(++nextItem), bookshelfId: SHELF, storyId, read: false, dateAdded: new Date(Date.UTC(2025, 0, 1) + nextItem * 1000) };
    await withTransaction(h.pool, (tx) => copy.applyItem(tx, item, new Date()));
  }

  async function publishedStory(title: string, tagIds: string[], content = 'one two three'): Promise<string> {
    const id = (await h.client.createStory({ title, tagIds }, writer)).story!.id;
    await h.client.createChapter({ storyId: id, title: 'One', content, published: true }, writer);
    await h.client.updateStory({ id, published: true }, writer);
    return id;
  }

  /** The shelf list with `filter` by date added (newest first), after checking it against the same list by publication date. */
  async function onShelf(filter: NonNullable<ListRequest['filter']> = {}, query = ''): Promise<string[]> {
    const request = (field: StorySortField): ListRequest => ({ query, filter: { ...filter, bookshelfId: SHELF }, sort: { field, direction: SortDirection.DESCENDING } });
    const byDateAdded = await listAll(h, request(StorySortField.DATE_ADDED), app, random);
    const byDatePublished = await listAll(h, request(StorySortField.DATE_PUBLISHED), app, random);
    expect([...byDateAdded].sort()).toEqual([...byDatePublished].sort());
    return byDateAdded;
  }

  let lantern: string;
  let river: string;

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_shelf_items_copy');
    copy = new BookshelfCopyService(new BookshelfCopyRepository(h.pool));
    await withTransaction(h.pool, (tx) => copy.applyShelf(tx, { id: SHELF, ownerId: OWNER, private: false, dateModified: new Date() }, new Date()));
    lantern = await publishedStory('The lantern keeper', ['c:1']);
    river = await publishedStory('A river story', ['g:1']);
    await shelve(lantern);
    await shelve(river);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('lists a story by its new tags as soon as it is retagged', async () => {
    expect(await onShelf({ tagIds: ['c:1'] })).toEqual([lantern]);
    await h.client.updateStory({ id: lantern, tags: { ids: ['g:2'] } }, writer);
    expect(await onShelf({ tagIds: ['c:1'] })).toEqual([]);
    expect(await onShelf({ tagIds: ['g:2'] })).toEqual([lantern]);
    await h.client.updateStory({ id: river, tags: { ids: ['g:2', 'c:1'] } }, writer);
    expect(await onShelf({ tagIds: ['g:2'] })).toEqual([river, lantern]);
    expect(await onShelf({ tagIds: ['g:2', 'c:1'] })).toEqual([river]);
  });

  it('finds a story by the words of its new title, and no longer by the old ones', async () => {
    expect(await onShelf({}, 'lantern')).toEqual([lantern]);
    await h.client.updateStory({ id: lantern, title: 'The marigold keeper' }, writer);
    expect(await onShelf({}, 'lantern')).toEqual([]);
    expect(await onShelf({}, 'marigold')).toEqual([lantern]);
    expect(await onShelf({}, 'keeper -marigold')).toEqual([]);
  });

  it('follows status and word count changes (a new chapter)', async () => {
    await h.client.updateStory({ id: river, status: StoryStatus.COMPLETE }, writer);
    expect(await onShelf({ status: StoryStatus.COMPLETE })).toEqual([river]);
    expect(await onShelf({ status: StoryStatus.INCOMPLETE })).toEqual([lantern]);
    expect(await onShelf({ numWordsMin: 4 })).toEqual([]);
    await h.client.createChapter({ storyId: river, title: 'Two', content: 'four five six seven', published: true }, writer);
    expect(await onShelf({ numWordsMin: 4 })).toEqual([river]);
  });

  it('drops a story unpublished or deleted and shows it again when republished', async () => {
    await h.client.updateStory({ id: river, published: false }, writer);
    expect(await onShelf()).toEqual([lantern]);
    await h.client.updateStory({ id: river, published: true }, writer);
    expect(await onShelf()).toEqual([river, lantern]);
    await h.client.deleteStory({ id: river }, writer);
    expect(await onShelf()).toEqual([lantern]);
  });

  it('gives an item added while its story is being changed the story as changed', async () => {
    const story = await publishedStory('A racing swift', ['c:4']);
    const change = await h.pool.connect();
    try {
      // A change of the story in progress (as the service's repository writes it), not committed yet.
      await change.query('BEGIN');
      await change.query("UPDATE stories SET tag_ids = '{c:5}' WHERE id = $1", [story]);
      const adding = shelve(story);
      // The item's insert waits for the change; without that it would copy the tags from before.
      const waiting = "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO bookshelf_items%'";
      await eventually(async () => (await h.pool.query(waiting)).rowCount === 1, { what: 'the item insert to wait for the story change' }).catch(async (error: unknown) => {
        await change.query('ROLLBACK');
        await adding;
        throw error;
      });
      await change.query('COMMIT');
      await adding;
    } finally {
      change.release();
    }
    expect(await onShelf({ tagIds: ['c:5'] })).toEqual([story]);
    expect(await onShelf({ tagIds: ['c:4'] })).toEqual([]);
  });

  it('gives an item added later the story as it is now', async () => {
    const late = await publishedStory('A late heron', ['c:2']);
    await h.client.updateStory({ id: late, tags: { ids: ['c:3'] }, title: 'A late egret' }, writer);
    await shelve(late);
    expect(await onShelf({ tagIds: ['c:3'] }, 'egret')).toEqual([late]);
    expect(await onShelf({ tagIds: ['c:2'] })).toEqual([]);
    expect(await onShelf({ authorIds: [WRITER], tagIds: ['c:3'] })).toEqual([late]);
    expect(await onShelf({ authorIds: [OWNER] })).toEqual([]);
  });

  it('follows the last update of a story (a chapter published, not a draft one) in filter[date_updated] and sort=date_updated', async () => {
    const wren = await publishedStory('A quiet wren', ['g:3']);
    await shelve(wren);
    // Strictly after every update so far.
    const since = new Date(Date.now() + 1);
    await eventually(async () => Date.now() > since.getTime(), { what: 'the clock to pass the start of the window' });
    const updatedSince = { dateUpdatedMin: timestampFromDate(since) };
    expect(await onShelf(updatedSince)).toEqual([]);
    await h.client.createChapter({ storyId: lantern, title: 'Two', content: 'more words here', published: true }, writer);
    await h.client.createChapter({ storyId: wren, title: 'Two', content: 'not yet', published: false }, writer);
    expect(await onShelf(updatedSince)).toEqual([lantern]);
    expect(await onShelf({ dateUpdatedMax: timestampFromDate(since) })).toEqual(expect.arrayContaining([wren]));
    const byUpdate = await listAll(h, { filter: { bookshelfId: SHELF }, sort: { field: StorySortField.DATE_UPDATED, direction: SortDirection.DESCENDING } }, app, random);
    expect(byUpdate.slice(0, 2)).toEqual([lantern, wren]);
  });
});
