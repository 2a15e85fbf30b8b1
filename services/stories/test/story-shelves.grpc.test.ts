import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { withTransaction } from '@inkwell/pg';
import { SortDirection, StorySortField, StoryStatus } from '@inkwell/proto/stories';
import type { StorySortField as SortField } from '../src/domain/list.js';
import { wilsonRating } from '../src/domain/rating.js';
import type { StoryListQuery } from '../src/domain/story-query.js';
import { BookshelfCopyRepository } from '../src/repositories/bookshelf-copy.repository.js';
import { storyPageStatement } from '../src/repositories/story-list.sql.js';
import { BookshelfCopyService } from '../src/services/bookshelf-copy.service.js';
import { makeStory } from './factories.js';
import { caller, startStories, type StoriesHarness } from './harness.js';
import { listAll, ordered, prng, SORTS, type Fixture, type ListRequest } from './list-helpers.js';

const random = prng(7);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const OWNER = '801';
const OTHER = '802';
const ownerWithScope = () => caller({ userId: OWNER }, ['read_bookshelves']);
const ownerWithoutScope = () => caller({ userId: OWNER });
const stranger = () => caller({ userId: OTHER }, ['read_bookshelves']);
const app = () => caller({ appId: 'shelves-test-app' });

const SHELF = { public: '501', private: '502', othersPrivate: '503', unknown: '599' } as const;
const BASE = Date.UTC(2025, 5, 1);

interface Item {
  id: string;
  storyId: string;
  read: boolean;
  added: Date;
}

describe('ListStories with filter[bookshelf], filter[unread] and sort=date_added', () => {
  let h: StoriesHarness;
  let copy: BookshelfCopyService;
  const corpus: Fixture[] = [];
  // Item ids: the public shelf's first items take 2000–2044; later ones count up from 100000, and
  // ids meant to sort below every later one count down from 99999.
  let nextItemId = 100_000;
  let lowItemId = 100_000;
  /** The items of each shelf, by shelf id. */
  const items = new Map<string, Item[]>();

  const byId = (id: string) => corpus.find((story) => story.id === id)!;
  const desc = { direction: SortDirection.DESCENDING };
  const dateAdded = (direction = SortDirection.DESCENDING) => ({ field: StorySortField.DATE_ADDED, direction });

  async function shelve(shelfId: string, storyId: string, added: Date, read = false, itemId = String(++nextItemId)): Promise<Item> {
    const item = { id: itemId, storyId, read, added };
    await withTransaction(h.pool, (tx) => copy.applyItem(tx, { id: item.id, bookshelfId: shelfId, storyId, read, dateAdded: added }, new Date()));
    items.set(shelfId, [...(items.get(shelfId) ?? []), item]);
    return item;
  }

  async function unshelve(shelfId: string, item: Item): Promise<void> {
    await withTransaction(h.pool, (tx) => copy.removeItem(tx, { id: item.id, bookshelfId: shelfId, storyId: item.storyId, read: item.read, dateAdded: item.added }, new Date()));
    items.set(shelfId, items.get(shelfId)!.filter((other) => other.id !== item.id));
  }

  /** Published stories on the shelf (unread ones only if asked), in date_added order, ties by item id. */
  function onShelf(shelfId: string, direction: 'asc' | 'desc' = 'desc', unreadOnly = false): string[] {
    const sign = direction === 'asc' ? 1 : -1;
    return (items.get(shelfId) ?? [])
      .filter((item) => byId(item.storyId).published && !(unreadOnly && item.read))
      .sort((a, b) => sign * (a.added.getTime() - b.added.getTime() || Number(a.id) - Number(b.id)))
      .map((item) => item.storyId);
  }
  const shelfStories = (shelfId: string) => onShelf(shelfId).map(byId);

  const all = (request: ListRequest, as = app) => listAll(h, request, as, random);
  const reason = (request: ListRequest, as: typeof app) =>
    h.client.listStories(request, as()).then(
      () => 'ok',
      (error: { code: string; details?: { reason: string; parameter?: string }[] }) => `${error.code} ${error.details?.[0]?.reason ?? ''} ${error.details?.[0]?.parameter ?? ''}`.trim(),
    );

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_shelves');
    copy = new BookshelfCopyService(new BookshelfCopyRepository(h.pool));
    await withTransaction(h.pool, async (tx) => {
      await copy.applyShelf(tx, { id: SHELF.public, ownerId: OWNER, private: false, dateModified: new Date(BASE) }, new Date());
      await copy.applyShelf(tx, { id: SHELF.private, ownerId: OWNER, private: true, dateModified: new Date(BASE) }, new Date());
      await copy.applyShelf(tx, { id: SHELF.othersPrivate, ownerId: OTHER, private: true, dateModified: new Date(BASE) }, new Date());
    });
    for (let i = 0; i < 60; i++) {
      const likes = pick([0, 3, 10, 50]);
      const dislikes = likes === 0 ? 0 : pick([0, 1, 5]);
      corpus.push(
        await makeStory(h.pool, {
          authorId: pick(['21', '22', '23']),
          title: random() < 0.4 ? `The lantern ${i}` : `A river ${i}`,
          status: pick(['complete', 'incomplete', 'on-hiatus', 'cancelled'] as const),
          published: i % 9 !== 4,
          tagIds: ['c:1', 'g:1', 'g:2'].filter(() => random() < 0.5),
          numWords: pick([500, 1000, 2500, 5000]),
          numViews: pick([0, 5, 40, 300]),
          numLikes: likes,
          numDislikes: dislikes,
          numComments: pick([0, 1, 7]),
          rating: wilsonRating(likes, dislikes),
          hotness: pick([1.5, 2.25, 3.0]),
          datePublished: new Date(BASE - Math.floor(random() * 30) * 86_400_000),
          dateModified: new Date(BASE + Math.floor(random() * 100) * 3_600_000),
          // A few without an update yet (last both ways by date_updated), the others in another order than publication.
          dateUpdated: i % 11 === 6 ? null : new Date(BASE + Math.floor(random() * 40) * 86_400_000),
        }),
      );
    }
    // Item ids are not in date order, and several items share a date, so ties by item id are exercised.
    const ids = Array.from({ length: 45 }, (_, i) => 2000 + i).sort(() => random() - 0.5);
    for (const [index, story] of corpus.slice(0, 45).entries()) {
      await shelve(SHELF.public, story.id, new Date(BASE + Math.floor(random() * 12) * 60_000), random() < 0.4, String(ids[index]));
    }
    for (const story of corpus.slice(40, 52)) await shelve(SHELF.private, story.id, new Date(BASE + Math.floor(random() * 1000) * 1000), random() < 0.5);
    for (const story of corpus.slice(50, 56)) await shelve(SHELF.othersPrivate, story.id, new Date(BASE), false);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows a public shelf to every caller and a private one to its owner with read_bookshelves only', async () => {
    const byDate = (shelfId: string) => ordered(shelfStories(shelfId), 'datePublished', 'desc');
    expect(byDate(SHELF.public).length).toBeGreaterThan(30);
    for (const as of [app, stranger, ownerWithoutScope, ownerWithScope]) expect(await all({ filter: { bookshelfId: SHELF.public } }, as)).toEqual(byDate(SHELF.public));
    expect(await all({ filter: { bookshelfId: SHELF.private } }, ownerWithScope)).toEqual(byDate(SHELF.private));
    // Another user's private shelf, and a shelf that does not exist, match nothing alike.
    for (const as of [app, stranger]) expect(await all({ filter: { bookshelfId: SHELF.private } }, as)).toEqual([]);
    expect(await all({ filter: { bookshelfId: SHELF.othersPrivate } }, ownerWithScope)).toEqual([]);
    expect(await all({ filter: { bookshelfId: SHELF.unknown } }, ownerWithScope)).toEqual([]);
    expect(await all({ filter: { bookshelfId: SHELF.othersPrivate } }, () => caller({ userId: OTHER }, ['read_bookshelves']))).toEqual(byDate(SHELF.othersPrivate));
  });

  it('answers the owner of a private shelf without read_bookshelves with insufficient_scope', async () => {
    expect(await reason({ filter: { bookshelfId: SHELF.private } }, ownerWithoutScope)).toBe(`${ErrorCode.PERMISSION_DENIED} insufficient_scope`);
    expect(await reason({ filter: { bookshelfId: SHELF.private, unread: true }, sort: dateAdded() }, ownerWithoutScope)).toBe(`${ErrorCode.PERMISSION_DENIED} insufficient_scope`);
  });

  it('keeps unread items with filter[unread]=true, everything with false, on shelves the caller owns only', async () => {
    const unread = onShelf(SHELF.public, 'desc', true);
    expect(unread.length).toBeGreaterThan(5);
    expect(unread.length).toBeLessThan(onShelf(SHELF.public).length);
    expect(await all({ filter: { bookshelfId: SHELF.public, unread: true }, sort: dateAdded() }, ownerWithScope)).toEqual(unread);
    expect(await all({ filter: { bookshelfId: SHELF.public, unread: false }, sort: dateAdded() }, ownerWithScope)).toEqual(onShelf(SHELF.public));
    // One's own public shelf needs no scope; a private one does.
    expect(await all({ filter: { bookshelfId: SHELF.public, unread: true }, sort: dateAdded() }, ownerWithoutScope)).toEqual(unread);
    expect(await all({ filter: { bookshelfId: SHELF.private, unread: true }, sort: dateAdded(SortDirection.ASCENDING) }, ownerWithScope)).toEqual(onShelf(SHELF.private, 'asc', true));

    const refused = `${ErrorCode.INVALID_ARGUMENT} unread_requires_owned_bookshelf filter[unread]`;
    for (const unreadValue of [true, false]) {
      expect(await reason({ filter: { unread: unreadValue } }, ownerWithScope)).toBe(refused);
      expect(await reason({ filter: { bookshelfId: SHELF.public, unread: unreadValue } }, stranger)).toBe(refused);
      expect(await reason({ filter: { bookshelfId: SHELF.public, unread: unreadValue } }, app)).toBe(refused);
      expect(await reason({ filter: { bookshelfId: SHELF.othersPrivate, unread: unreadValue } }, ownerWithScope)).toBe(refused);
      expect(await reason({ filter: { bookshelfId: SHELF.unknown, unread: unreadValue } }, ownerWithScope)).toBe(refused);
    }
  });

  it('sorts by date_added both ways, ties by item id, across pages of any size', async () => {
    expect(await all({ filter: { bookshelfId: SHELF.public }, sort: dateAdded() })).toEqual(onShelf(SHELF.public, 'desc'));
    expect(await all({ filter: { bookshelfId: SHELF.public }, sort: dateAdded(SortDirection.ASCENDING) })).toEqual(onShelf(SHELF.public, 'asc'));
    const dates = (items.get(SHELF.public) ?? []).map((item) => item.added.getTime());
    expect(new Set(dates).size).toBeLessThan(dates.length);
  });

  it('rejects date_added without a shelf, a malformed shelf id, and bad cursors, also on shelves that match nothing', async () => {
    expect(await reason({ sort: dateAdded() }, app)).toBe(`${ErrorCode.INVALID_ARGUMENT} invalid_sort sort`);
    expect(await reason({ filter: { bookshelfId: '0' } }, app)).toBe(`${ErrorCode.INVALID_ARGUMENT} invalid_parameter filter[bookshelf]`);
    expect(await reason({ filter: { bookshelfId: SHELF.private }, after: 'garbage' }, app)).toBe(`${ErrorCode.INVALID_ARGUMENT} invalid_cursor page[cursor]`);
    const page = await h.client.listStories({ filter: { bookshelfId: SHELF.public }, sort: dateAdded(), pageSize: 2 }, app());
    expect(await reason({ filter: { bookshelfId: SHELF.public }, sort: dateAdded(SortDirection.ASCENDING), after: page.nextAfter }, app)).toBe(
      `${ErrorCode.INVALID_ARGUMENT} invalid_cursor page[cursor]`,
    );
  });

  it('combines with every other filter, under date_added and under another sort', async () => {
    const stories = shelfStories(SHELF.public);
    const someIds = corpus.slice(0, 30).map((story) => story.id);
    const low = new Date(BASE - 20 * 86_400_000);
    const high = new Date(BASE - 5 * 86_400_000);
    const cases: [ListRequest['filter'], (story: Fixture) => boolean][] = [
      [{ ids: someIds }, (s) => someIds.includes(s.id)],
      [{ authorIds: ['22'] }, (s) => s.authorId === '22'],
      [{ numWordsMin: 1000, numWordsMax: 2500 }, (s) => s.numWords >= 1000 && s.numWords <= 2500],
      [{ status: StoryStatus.COMPLETE }, (s) => s.status === 'complete'],
      [{ datePublishedMin: timestampFromDate(low), datePublishedMax: timestampFromDate(high) }, (s) => s.datePublished! >= low && s.datePublished! <= high],
      [{ tagIds: ['g:1', 'c:1'] }, (s) => s.tagIds.includes('g:1') && s.tagIds.includes('c:1')],
      [
        { dateUpdatedMin: timestampFromDate(new Date(BASE + 10 * 86_400_000)), dateUpdatedMax: timestampFromDate(new Date(BASE + 30 * 86_400_000)) },
        (s) => s.dateUpdated !== null && s.dateUpdated.getTime() >= BASE + 10 * 86_400_000 && s.dateUpdated.getTime() <= BASE + 30 * 86_400_000,
      ],
    ];
    for (const [filter, keep] of cases) {
      const expected = stories.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(stories.length);
      expect(await all({ filter: { ...filter, bookshelfId: SHELF.public }, sort: dateAdded() })).toEqual(expected.map((story) => story.id));
      expect(await all({ filter: { ...filter, bookshelfId: SHELF.public }, sort: { field: StorySortField.NUM_WORDS, ...desc } })).toEqual(ordered(expected, 'numWords', 'desc'));
      expect(await all({ filter: { ...filter, bookshelfId: SHELF.public }, sort: { field: StorySortField.DATE_UPDATED, ...desc } })).toEqual(ordered(expected, 'dateUpdated', 'desc'));
    }
  });

  it.each(SORTS.flatMap(([field, key]) => (['asc', 'desc'] as const).map((direction) => [StorySortField[field], field, key, direction] as const)))(
    'keeps the shelf under sort %s %s',
    async (_name, field, key, direction) => {
      const sort = { field, direction: direction === 'asc' ? SortDirection.ASCENDING : SortDirection.DESCENDING };
      expect(await all({ filter: { bookshelfId: SHELF.public }, sort })).toEqual(ordered(shelfStories(SHELF.public), key, direction));
      expect(await all({ filter: { bookshelfId: SHELF.public, unread: true }, sort }, ownerWithScope)).toEqual(
        ordered(onShelf(SHELF.public, 'desc', true).map(byId), key, direction),
      );
    },
  );

  it.each([
    ['reading the few qualifying stories', 0],
    ['walking the sort index', Number.MAX_SAFE_INTEGER],
  ])('lists a shelf or an author under value sorts the same way %s', async (_plan, qualifying) => {
    // The service picks the plan by how many stories qualify; small lists take the first, so the
    // walk is checked here directly against the same expected order.
    const pageIds = async (query: StoryListQuery): Promise<string[]> => {
      const ids: string[] = [];
      let after: StoryListQuery['after'];
      for (let pages = 0; pages < 100; pages++) {
        const statement = storyPageStatement({ ...query, ...(after ? { after } : {}) }, qualifying);
        const { rows } = await h.pool.query<{ id: string; sort_key: string | null; tie_id: string }>(statement.text, statement.values);
        ids.push(...rows.slice(0, query.limit).map((row) => row.id));
        if (rows.length <= query.limit) return ids;
        const last = rows[query.limit - 1]!;
        after = { key: last.sort_key, id: last.tie_id };
      }
      throw new Error('the list did not end');
    };
    const shelf = { id: SHELF.public, unreadOnly: false };
    for (const [field, key] of SORTS) {
      for (const direction of ['asc', 'desc'] as const) {
        // The proto enum's names are the sort fields in upper case.
        const query: StoryListQuery = { publication: 'published', bookshelf: shelf, sort: { field: StorySortField[field].toLowerCase() as SortField, direction }, limit: 4 };
        expect(await pageIds(query)).toEqual(ordered(shelfStories(SHELF.public), key, direction));
      }
    }
    const expected = shelfStories(SHELF.public).filter((story) => story.title.includes('lantern') && story.tagIds.includes('g:1'));
    expect(expected.length).toBeGreaterThan(0);
    const filtered: StoryListQuery = { publication: 'published', bookshelf: shelf, text: 'lantern', tagIds: ['g:1'], sort: { field: 'num_words', direction: 'desc' }, limit: 3 };
    expect(await pageIds(filtered)).toEqual(ordered(expected, 'numWords', 'desc'));
    // An author's stories (GET /users/:id/stories), drafts included or not: never published last both ways.
    const byAuthor = corpus.filter((story) => story.authorId === '22');
    expect(byAuthor.some((story) => !story.published)).toBe(true);
    for (const [field, key] of [['date_published', 'datePublished'], ['rating', 'rating'], ['hotness', 'hotness'], ['date_updated', 'dateUpdated']] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const sort = { field, direction };
        expect(await pageIds({ publication: 'all', authorIds: ['22'], sort, limit: 4 })).toEqual(ordered(byAuthor, key, direction));
        expect(await pageIds({ publication: 'published', authorIds: ['22'], sort, limit: 4 })).toEqual(ordered(byAuthor.filter((story) => story.published), key, direction));
      }
    }
  });

  it('searches the shelf with query under date_added, relevance and another sort', async () => {
    const matching = (ids: string[]) => ids.filter((id) => byId(id).title.includes('lantern'));
    const expected = matching(onShelf(SHELF.public));
    expect(expected.length).toBeGreaterThan(3);
    expect(await all({ query: 'lantern', filter: { bookshelfId: SHELF.public }, sort: dateAdded() })).toEqual(expected);
    expect(await all({ query: 'lantern', filter: { bookshelfId: SHELF.public, unread: true }, sort: dateAdded() }, ownerWithScope)).toEqual(
      matching(onShelf(SHELF.public, 'desc', true)),
    );
    // Shelf lists rank in the database (docs/api/stories.md, "Search", "With filter[bookshelf]"):
    // every match on the shelf once, and ascending is the exact reverse.
    const ranked = await all({ query: 'lantern', filter: { bookshelfId: SHELF.public }, sort: { field: StorySortField.RELEVANCE, ...desc } });
    expect([...ranked].sort()).toEqual([...expected].sort());
    expect(await all({ query: 'lantern', filter: { bookshelfId: SHELF.public }, sort: { field: StorySortField.RELEVANCE, direction: SortDirection.ASCENDING } })).toEqual(
      [...ranked].reverse(),
    );
    expect(await all({ query: 'lantern', filter: { bookshelfId: SHELF.public }, sort: { field: StorySortField.HOTNESS, ...desc } })).toEqual(
      ordered(expected.map(byId), 'hotness', 'desc'),
    );
  });

  it('ranks every match of a shelf with more than 500 of them, an exact title first, every one reachable by paging', async () => {
    const shelfId = '521';
    await withTransaction(h.pool, (tx) => copy.applyShelf(tx, { id: shelfId, ownerId: OWNER, private: false, dateModified: new Date(BASE) }, new Date()));
    const made = async (count: number, fixture: (i: number) => Parameters<typeof makeStory>[1]) => {
      const stories: Fixture[] = [];
      // A few at a time: the pool has room, and 500 one by one would take needlessly long.
      for (let start = 0; start < count; start += 10) {
        stories.push(...(await Promise.all(Array.from({ length: Math.min(10, count - start) }, (_, j) => makeStory(h.pool, fixture(start + j))))));
      }
      return stories;
    };
    // Titles that repeat the word, which plain term-frequency ranking would put above the exact title.
    const matches = await made(530, (i) => ({ title: `Harbour harbour harbour ${i}`, shortDescription: 'Boats in the harbour.', description: `The harbour at dusk, tale ${i}.` }));
    const [exact] = await made(1, () => ({ title: 'Harbour', description: 'A long tale of a town by the sea, its boats, its people and its weather, told over many years.' }));
    const unpublished = await made(3, () => ({ title: 'Harbour lights', published: false }));
    const elsewhere = await made(5, (i) => ({ title: `The quiet lane ${i}` }));
    const offShelf = await made(2, () => ({ title: 'Harbour' }));
    corpus.push(...matches, exact!, ...unpublished, ...elsewhere, ...offShelf);
    let minute = 0;
    for (const story of [...matches, exact!, ...unpublished, ...elsewhere]) await shelve(shelfId, story.id, new Date(BASE + ++minute * 60_000));

    const expected = [exact!, ...matches].map((story) => story.id);
    const relevance = (direction: SortDirection) => all({ query: 'harbour', filter: { bookshelfId: shelfId }, sort: { field: StorySortField.RELEVANCE, direction } });
    const ranked = await relevance(SortDirection.DESCENDING);
    expect(ranked).toHaveLength(expected.length);
    expect([...ranked].sort()).toEqual([...expected].sort());
    expect(ranked[0]).toBe(exact!.id);
    expect(await relevance(SortDirection.ASCENDING)).toEqual([...ranked].reverse());
    // A plural finds the singular, and the exact title still comes first.
    const plural = await all({ query: 'harbours', filter: { bookshelfId: shelfId }, sort: { field: StorySortField.RELEVANCE, ...desc } });
    expect(plural[0]).toBe(exact!.id);
    expect(plural).toHaveLength(expected.length);
  });

  it('moves a story removed and added again to its new date', async () => {
    const [first] = onShelf(SHELF.private, 'asc');
    const item = items.get(SHELF.private)!.find((candidate) => candidate.storyId === first)!;
    await unshelve(SHELF.private, item);
    expect(await all({ filter: { bookshelfId: SHELF.private }, sort: dateAdded() }, ownerWithScope)).not.toContain(first);
    await shelve(SHELF.private, first!, new Date(BASE + 10_000_000));
    const listed = await all({ filter: { bookshelfId: SHELF.private }, sort: dateAdded() }, ownerWithScope);
    expect(listed[0]).toBe(first);
    expect(listed).toEqual(onShelf(SHELF.private));
  });

  it.each(['desc', 'asc'] as const)('pages by date_added %s exactly once and in order while items are being added', async (direction) => {
    const shelfId = direction === 'desc' ? '511' : '512';
    await withTransaction(h.pool, (tx) => copy.applyShelf(tx, { id: shelfId, ownerId: OWNER, private: false, dateModified: new Date(BASE) }, new Date()));
    const minute = (n: number) => new Date(BASE + n * 60_000);
    for (let i = 0; i < 24; i++) {
      const story = await makeStory(h.pool);
      corpus.push(story);
      await shelve(shelfId, story.id, minute(100 + 10 * Math.floor(i / 2)));
    }
    const before = onShelf(shelfId, direction);
    const sort = dateAdded(direction === 'asc' ? SortDirection.ASCENDING : SortDirection.DESCENDING);
    const seen: string[] = [];
    let after = '';
    for (let pages = 0; pages < 100; pages++) {
      const page = await h.client.listStories({ filter: { bookshelfId: shelfId }, sort, pageSize: 1 + Math.floor(random() * 4), after }, app());
      seen.push(...page.stories.map((story) => story.id));
      // Add stories before, exactly at (same date: the lower and the higher item id) and after the position.
      const last = items.get(shelfId)!.find((item) => item.storyId === seen.at(-1));
      const at = last ? last.added.getTime() : minute(100).getTime();
      for (const [date, itemId] of [
        [minute(0), undefined],
        [new Date(at), String(--lowItemId)],
        [new Date(at), undefined],
        [minute(10_000), undefined],
      ] as const) {
        const story = await makeStory(h.pool);
        corpus.push(story);
        await shelve(shelfId, story.id, date, false, itemId);
      }
      if (page.nextAfter === '') break;
      after = page.nextAfter;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen.filter((other) => other === id)).toHaveLength(1);
    const rank = new Map(onShelf(shelfId, direction).map((id, index) => [id, index]));
    const positions = seen.map((id) => rank.get(id)!);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });
});
