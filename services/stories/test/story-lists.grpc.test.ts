import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { SortDirection, StorySortField, StoryStatus } from '@inkwell/proto/stories';
import { wilsonRating } from '../src/domain/rating.js';
import { makeStory } from './factories.js';
import { author, caller, startStories, type StoriesHarness } from './harness.js';
import { listAll, ordered, prng, SORTS, type Fixture, type ListRequest as Request } from './list-helpers.js';

const random = prng(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const reader = () => caller({ appId: 'lists-test-app' });

describe('ListStories over gRPC', () => {
  let h: StoriesHarness;
  let corpus: Fixture[] = [];
  const published = () => corpus.filter((story) => story.published);

  const all = (request: Request) => listAll(h, request, reader, random);

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_lists');
    const base = Date.UTC(2024, 2, 10);
    const sharedDate = new Date(base + 5 * 86_400_000);
    const sharedUpdate = new Date(base + 30 * 86_400_000);
    for (let i = 0; i < 70; i++) {
      const likes = pick([0, 0, 3, 10, 10, 50]);
      const dislikes = likes === 0 ? pick([0, 0, 2]) : pick([0, 1, 5]);
      const tags = ['c:1', 'c:2', 'g:1', 'g:2', 'g:3'].filter(() => random() < 0.4);
      corpus.push(
        await makeStory(h.pool, {
          authorId: pick(['11', '12', '13']),
          status: pick(['complete', 'incomplete', 'on-hiatus', 'cancelled'] as const),
          published: i % 12 !== 5,
          tagIds: tags,
          numWords: pick([500, 1000, 1000, 2500, 5000, 5000, 12000]),
          numViews: pick([0, 5, 5, 40, 300]),
          numLikes: likes,
          numDislikes: dislikes,
          numComments: pick([0, 0, 1, 7]),
          rating: wilsonRating(likes, dislikes),
          hotness: pick([1.5, 2.25, 2.25, 3.0, 10.125]),
          // Several stories share a timestamp, so ties by id are exercised.
          datePublished: random() < 0.2 ? sharedDate : new Date(base + Math.floor(random() * 20) * 86_400_000 + Math.floor(random() * 3) * 3_600_000),
          dateModified: new Date(base + Math.floor(random() * 1000) * 3_600_000),
          // Updates in another order than publication; shared ones tie; a few none yet (last both ways).
          dateUpdated: i % 10 === 3 ? null : random() < 0.2 ? sharedUpdate : new Date(base + Math.floor(random() * 40) * 86_400_000 + Math.floor(random() * 5) * 3_600_000),
        }),
      );
    }
    await h.rebuildIndex();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('lists published stories only, newest first by default, each once', async () => {
    const ids = await all({});
    expect(ids).toEqual(ordered(published(), 'datePublished', 'desc'));
    const drafts = corpus.filter((story) => !story.published).map((story) => story.id);
    expect(drafts.length).toBeGreaterThan(0);
    expect(ids.some((id) => drafts.includes(id))).toBe(false);
  });

  it.each(SORTS.flatMap(([field, key]) => (['asc', 'desc'] as const).map((direction) => [StorySortField[field], field, key, direction] as const)))(
    'sorts by %s %s with ties by id and nulls last',
    async (_name, field, key, direction) => {
      const sort = { field, direction: direction === 'asc' ? SortDirection.ASCENDING : SortDirection.DESCENDING };
      expect(await all({ sort })).toEqual(ordered(published(), key, direction));
    },
  );

  it('puts stories without votes last in both directions of rating', async () => {
    const unrated = published().filter((story) => story.rating === null).map((story) => story.id);
    expect(unrated.length).toBeGreaterThan(0);
    for (const direction of [SortDirection.ASCENDING, SortDirection.DESCENDING]) {
      const ids = await all({ sort: { field: StorySortField.RATING, direction } });
      expect(ids.slice(-unrated.length).sort()).toEqual([...unrated].sort());
    }
  });

  it('filters by ids, author, status and tags (all of them)', async () => {
    const byDate = (stories: Fixture[]) => ordered(stories, 'datePublished', 'desc');
    const someIds = corpus.slice(0, 15).map((story) => story.id);
    expect(await all({ filter: { ids: someIds } })).toEqual(byDate(published().filter((s) => someIds.includes(s.id))));
    expect(await all({ filter: { authorIds: ['12'] } })).toEqual(byDate(published().filter((s) => s.authorId === '12')));
    expect(await all({ filter: { authorIds: ['13', '11'] } })).toEqual(byDate(published().filter((s) => s.authorId === '11' || s.authorId === '13')));
    expect(await all({ filter: { status: StoryStatus.ON_HIATUS } })).toEqual(byDate(published().filter((s) => s.status === 'on-hiatus')));
    const tagged = published().filter((s) => s.tagIds.includes('c:1') && s.tagIds.includes('g:2'));
    expect(tagged.length).toBeGreaterThan(0);
    expect(await all({ filter: { tagIds: ['c:1', 'g:2'] } })).toEqual(byDate(tagged));
    expect(await all({ filter: { tagIds: ['g:40'] } })).toEqual([]);
  });

  it('filters word counts with inclusive bounds and open ranges', async () => {
    const byDate = (stories: Fixture[]) => ordered(stories, 'datePublished', 'desc');
    expect(await all({ filter: { numWordsMin: 1000, numWordsMax: 5000 } })).toEqual(byDate(published().filter((s) => s.numWords >= 1000 && s.numWords <= 5000)));
    expect(await all({ filter: { numWordsMin: 5000 } })).toEqual(byDate(published().filter((s) => s.numWords >= 5000)));
    expect(await all({ filter: { numWordsMax: 1000 } })).toEqual(byDate(published().filter((s) => s.numWords <= 1000)));
    expect(await all({ filter: { numWordsMin: 2500, numWordsMax: 2500 } })).toEqual(byDate(published().filter((s) => s.numWords === 2500)));
  });

  it('filters publication dates with inclusive bounds and open ranges', async () => {
    const byDate = (stories: Fixture[]) => ordered(stories, 'datePublished', 'desc');
    const dates = published().map((s) => s.datePublished!.getTime()).sort((a, b) => a - b);
    const low = new Date(dates[10]!);
    const high = new Date(dates[40]!);
    const inRange = (s: Fixture) => s.datePublished!.getTime() >= low.getTime() && s.datePublished!.getTime() <= high.getTime();
    expect(await all({ filter: { datePublishedMin: timestampFromDate(low), datePublishedMax: timestampFromDate(high) } })).toEqual(byDate(published().filter(inRange)));
    expect(await all({ filter: { datePublishedMin: timestampFromDate(high) } })).toEqual(byDate(published().filter((s) => s.datePublished!.getTime() >= high.getTime())));
    expect(await all({ filter: { datePublishedMax: timestampFromDate(low) } })).toEqual(byDate(published().filter((s) => s.datePublished!.getTime() <= low.getTime())));
  });

  it('puts stories never updated last in both directions of date_updated, and filters the update with inclusive bounds and open ranges', async () => {
    const never = published().filter((story) => story.dateUpdated === null).map((story) => story.id);
    expect(never.length).toBeGreaterThan(0);
    for (const direction of [SortDirection.ASCENDING, SortDirection.DESCENDING]) {
      const ids = await all({ sort: { field: StorySortField.DATE_UPDATED, direction } });
      expect(ids.slice(-never.length).sort()).toEqual([...never].sort());
    }
    const byUpdate = (stories: Fixture[]) => ordered(stories, 'dateUpdated', 'desc');
    const newest = { field: StorySortField.DATE_UPDATED, direction: SortDirection.DESCENDING };
    const dates = published().flatMap((s) => (s.dateUpdated ? [s.dateUpdated.getTime()] : [])).sort((a, b) => a - b);
    const low = new Date(dates[10]!);
    const high = new Date(dates[40]!);
    const at = (s: Fixture) => s.dateUpdated?.getTime() ?? Number.NaN;
    expect(await all({ filter: { dateUpdatedMin: timestampFromDate(low), dateUpdatedMax: timestampFromDate(high) }, sort: newest })).toEqual(
      byUpdate(published().filter((s) => at(s) >= low.getTime() && at(s) <= high.getTime())),
    );
    expect(await all({ filter: { dateUpdatedMin: timestampFromDate(high) }, sort: newest })).toEqual(byUpdate(published().filter((s) => at(s) >= high.getTime())));
    expect(await all({ filter: { dateUpdatedMax: timestampFromDate(low) }, sort: newest })).toEqual(byUpdate(published().filter((s) => at(s) <= low.getTime())));
    // With the other filters, and under another sort.
    const combined = published().filter((s) => at(s) >= low.getTime() && s.tagIds.includes('g:1') && s.numWords >= 1000);
    expect(combined.length).toBeGreaterThan(0);
    expect(await all({ filter: { dateUpdatedMin: timestampFromDate(low), tagIds: ['g:1'], numWordsMin: 1000 }, sort: { field: StorySortField.NUM_WORDS, direction: SortDirection.ASCENDING } })).toEqual(
      ordered(combined, 'numWords', 'asc'),
    );
  });

  it('combines filters with a sort', async () => {
    const expected = ordered(
      published().filter((s) => s.numWords >= 1000 && s.tagIds.includes('g:1') && s.status !== 'cancelled' && s.authorId !== '13'),
      'rating',
      'desc',
    );
    const combined = [] as string[];
    for (const status of [StoryStatus.COMPLETE, StoryStatus.INCOMPLETE, StoryStatus.ON_HIATUS]) {
      for (const authorId of ['11', '12']) {
        combined.push(...(await all({ filter: { numWordsMin: 1000, tagIds: ['g:1'], status, authorIds: [authorId] }, sort: { field: StorySortField.RATING, direction: SortDirection.DESCENDING } })));
      }
    }
    expect(combined.sort()).toEqual([...expected].sort());
  });

  it('rejects malformed filters, sorts, page sizes and cursors with the parameter named', async () => {
    const rejects = async (request: Request, reason: string, parameter: string) => {
      await expect(h.client.listStories(request, reader())).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ reason, parameter }] });
    };
    await rejects({ filter: { numWordsMin: 10, numWordsMax: 5 } }, 'invalid_parameter', 'filter[num_words]');
    await rejects({ filter: { numWordsMin: -1 } }, 'invalid_parameter', 'filter[num_words]');
    await rejects({ filter: { ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) } }, 'invalid_parameter', 'filter[ids]');
    await rejects({ filter: { ids: ['1', '0'] } }, 'invalid_parameter', 'filter[ids]');
    await rejects({ filter: { authorIds: ['0'] } }, 'invalid_parameter', 'filter[author]');
    await rejects({ filter: { tagIds: Array.from({ length: 101 }, (_, i) => `g:${i + 1}`) } }, 'invalid_parameter', 'filter[tags]');
    await rejects({ filter: { status: 99 as StoryStatus } }, 'invalid_parameter', 'filter[status]');
    await rejects({ filter: { tagIds: ['x:1'] } }, 'invalid_parameter', 'filter[tags]');
    await rejects({ filter: { datePublishedMin: timestampFromDate(new Date(2025, 1, 2)), datePublishedMax: timestampFromDate(new Date(2025, 1, 1)) } }, 'invalid_parameter', 'filter[date_published]');
    await rejects({ filter: { dateUpdatedMin: timestampFromDate(new Date(2025, 1, 2)), dateUpdatedMax: timestampFromDate(new Date(2025, 1, 1)) } }, 'invalid_parameter', 'filter[date_updated]');
    await rejects({ pageSize: 101 }, 'invalid_parameter', 'page[size]');
    await rejects({ pageSize: -1 }, 'invalid_parameter', 'page[size]');
    await rejects({ sort: { field: StorySortField.RELEVANCE, direction: SortDirection.DESCENDING } }, 'invalid_sort', 'sort');
    await rejects({ sort: { field: StorySortField.DATE_ADDED } }, 'invalid_sort', 'sort');
    await rejects({ filter: { unread: false } }, 'unread_requires_owned_bookshelf', 'filter[unread]');
    await rejects({ after: 'garbage' }, 'invalid_cursor', 'page[cursor]');
    // The search text limit counts characters (code points) after trimming (docs/api/lists.md).
    await rejects({ query: '𝔁'.repeat(201) }, 'invalid_parameter', 'query');
    await expect(h.client.listStories({ query: ` ${'𝔁'.repeat(200)} ` }, reader())).resolves.toMatchObject({ stories: [] });
    const page = await h.client.listStories({ pageSize: 2 }, reader());
    await rejects({ after: page.nextAfter, sort: { field: StorySortField.NUM_WORDS } }, 'invalid_cursor', 'page[cursor]');
  });

  it('pages through a filtered, sorted list exactly once and in order while stories are being published', async () => {
    const sort = { field: StorySortField.NUM_WORDS, direction: SortDirection.DESCENDING };
    const filter = { numWordsMin: 600 };
    const before = published().filter((s) => s.numWords >= 600);
    const seen: string[] = [];
    const added: Fixture[] = [];
    let after = '';
    for (let pages = 0; pages < 200; pages++) {
      const page = await h.client.listStories({ sort, filter, pageSize: 1 + Math.floor(random() * 5), after }, reader());
      seen.push(...page.stories.map((story) => story.id));
      // Publish stories that sort before, at and after the current position.
      const batch: Fixture[] = [];
      for (const numWords of [12000, 2500, 1000, 700]) batch.push(await makeStory(h.pool, { numWords, published: true }));
      await h.indexStories(batch.map((story) => story.id));
      added.push(...batch);
      if (page.nextAfter === '') break;
      after = page.nextAfter;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const story of before) expect(seen.filter((id) => id === story.id)).toHaveLength(1);
    const everything = [...before, ...added];
    const rank = new Map(ordered(everything, 'numWords', 'desc').map((id, index) => [id, index]));
    const positions = seen.map((id) => rank.get(id)!);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    corpus = [...corpus, ...added];
  });
});

describe('full-text search', () => {
  let h: StoriesHarness;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_search');
    // One story per field carrying the word "marigold"; equal lengths so only the field weight
    // differs. Every story has one tag, as stories usually do, and one more story has the word in
    // every field, so it ranks above all of them.
    ids.title = (await makeStory(h.pool, { title: 'The marigold', shortDescription: 'A quiet tale of a river town', description: 'Letters from a harbour.', tagIds: ['g:1'], numViews: 1 })).id;
    ids.tag = (await makeStory(h.pool, { title: 'The lantern', shortDescription: 'A quiet tale of a river town', description: 'Letters from a harbour.', tagIds: ['c:330'], numViews: 2 })).id;
    ids.short = (await makeStory(h.pool, { title: 'The lantern', shortDescription: 'A quiet tale of a marigold town', description: 'Letters from a harbour.', tagIds: ['g:1'], numViews: 3 })).id;
    ids.description = (await makeStory(h.pool, { title: 'The lantern', shortDescription: 'A quiet tale of a river town', description: 'Letters from a marigold.', tagIds: ['g:1'], numViews: 4 })).id;
    ids.twice = (await makeStory(h.pool, { title: 'Marigold, marigold', shortDescription: 'A quiet tale of a marigold town', description: 'Letters from a marigold harbour.', tagIds: ['c:330'], numViews: 0 })).id;
    ids.draft = (await makeStory(h.pool, { title: 'The marigold draft', published: false })).id;
    ids.other = (await makeStory(h.pool, { title: 'Nothing to see', shortDescription: 'A quiet tale of a river town', tagIds: ['g:1'] })).id;
    await h.pool.query("UPDATE tags SET name = 'Marigold' WHERE id = 'c:330'");
    await h.rebuildIndex();
  });

  afterAll(async () => {
    await h?.close();
  });

  const search = (query: string, direction = SortDirection.DESCENDING) =>
    h.client.listStories({ query, sort: { field: StorySortField.RELEVANCE, direction } }, reader()).then((page) => page.stories.map((story) => story.id));

  it('ranks title over tag names over short description over description, and more matches higher', async () => {
    expect(await search('marigold')).toEqual([ids.twice, ids.title, ids.tag, ids.short, ids.description]);
    expect(await search('marigold', SortDirection.ASCENDING)).toEqual([ids.description, ids.short, ids.tag, ids.title, ids.twice]);
  });

  it('stems words, supports phrases and exclusions, and never returns drafts', async () => {
    expect((await search('marigolds')).length).toBe(5);
    expect(await search('"marigold town"')).toEqual(expect.arrayContaining([ids.short, ids.twice]));
    expect((await search('"marigold town"')).length).toBe(2);
    // A stop word beside a phrase leaves the query to the phrase.
    expect((await search('the "marigold town"')).sort()).toEqual([ids.short, ids.twice].sort());
    expect(await search('marigold -harbour')).toEqual([ids.description]);
    expect(await search('marigold')).not.toContain(ids.draft);
  });

  it('filters by the query with any other sort', async () => {
    const page = await h.client.listStories({ query: 'marigold', sort: { field: StorySortField.NUM_VIEWS, direction: SortDirection.DESCENDING } }, reader());
    expect(page.stories.map((story) => story.id)).toEqual([ids.description, ids.short, ids.tag, ids.title, ids.twice]);
  });

  it('pages through relevance with cursors', async () => {
    const first = await h.client.listStories({ query: 'marigold', sort: { field: StorySortField.RELEVANCE, direction: SortDirection.DESCENDING }, pageSize: 2 }, reader());
    const second = await h.client.listStories(
      { query: 'marigold', sort: { field: StorySortField.RELEVANCE, direction: SortDirection.DESCENDING }, pageSize: 2, after: first.nextAfter },
      reader(),
    );
    const third = await h.client.listStories(
      { query: 'marigold', sort: { field: StorySortField.RELEVANCE, direction: SortDirection.DESCENDING }, pageSize: 2, after: second.nextAfter },
      reader(),
    );
    expect([...first.stories, ...second.stories, ...third.stories].map((story) => story.id)).toEqual(await search('marigold'));
    expect(third.nextAfter).toBe('');
  });

  it('matches nothing for a query without searchable words', async () => {
    expect(await search('the and of')).toEqual([]);
  });

  it('accepts any query text: never an error, whatever its quotes, signs and symbols', async () => {
    const nasty = ['"', '-', '--', '-"', '""-""', '"unclosed phrase', 'or', 'or or -or', '\u0000\u0001', '*:*', 'title:x AND y', '(((', ')', '\\', '{"match_all":{}}', '🐉 or 🐲', '\u200b', 'a'.repeat(200), '-'.repeat(200), '" "'];
    for (const query of nasty) {
      for (const field of [StorySortField.RELEVANCE, StorySortField.DATE_PUBLISHED]) {
        await expect(h.client.listStories({ query, sort: { field, direction: SortDirection.DESCENDING } }, reader()), query).resolves.toMatchObject({ stories: expect.any(Array) });
      }
    }
  });
});

describe('search beyond 500 matches', () => {
  let h: StoriesHarness;
  let exact = '';
  let plural = '';
  let bronte = '';
  /** Every published story whose text has the word heart (or hearts), with the values filters look at. */
  let matches: Array<{ id: string; numWords: number; numLikes: number; tagIds: string[] }> = [];

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_search_many');
    // 700 stories that say heart, many of them more often than the one titled exactly "Heart".
    const { rows } = await h.pool.query<{ id: string; num_words: number; num_likes: number; tag_ids: string[] }>(
      `INSERT INTO stories (author_id, title, short_description, published, num_words, num_likes, tag_ids, date_published)
       SELECT 9, CASE WHEN n % 3 = 0 THEN 'Heart of hearts, heart and heart' ELSE 'The heart ' || n END, 'A heart of gold',
              true, 100 * (n % 50), n % 17, CASE WHEN n % 4 = 0 THEN ARRAY['g:1', 'c:1'] WHEN n % 4 = 1 THEN ARRAY['g:1'] ELSE ARRAY['c:2'] END,
              now() - make_interval(mins => n)
       FROM generate_series(1, 700) AS n
       RETURNING id::text, num_words, num_likes, tag_ids`,
    );
    matches = rows.map((row) => ({ id: row.id, numWords: row.num_words, numLikes: row.num_likes, tagIds: row.tag_ids }));
    exact = (await makeStory(h.pool, { title: 'Heart', numWords: 300, tagIds: ['g:1'] })).id;
    plural = (await makeStory(h.pool, { title: 'Two hearts', numWords: 400 })).id;
    matches.push({ id: exact, numWords: 300, numLikes: 0, tagIds: ['g:1'] }, { id: plural, numWords: 400, numLikes: 0, tagIds: [] });
    await makeStory(h.pool, { title: 'A draft heart', published: false });
    await makeStory(h.pool, { title: 'Nothing here' });
    // Stories that repeat the name more often than the one titled exactly "Brontë".
    bronte = (await makeStory(h.pool, { title: 'Brontë' })).id;
    for (let n = 0; n < 3; n++) await makeStory(h.pool, { title: `Brontë, Brontë and Brontë ${n}`, shortDescription: 'The Brontë sisters, Brontë by Brontë.' });
    await h.rebuildIndex();
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  const walk = async (request: Request) => {
    const ids: string[] = [];
    const totals = new Set<string>();
    let after = '';
    do {
      const page = await h.client.listStories({ ...request, pageSize: 100, after }, reader());
      ids.push(...page.stories.map((story) => story.id));
      totals.add(`${page.total}/${page.totalIsLowerBound}`);
      after = page.nextAfter;
    } while (after !== '');
    return { ids, totals: [...totals] };
  };

  it('ranks the story titled exactly like the query first, and reaches every match by paging, with an exact total', async () => {
    const relevance = { field: StorySortField.RELEVANCE, direction: SortDirection.DESCENDING };
    const { ids, totals } = await walk({ query: 'heart', sort: relevance });
    expect(ids[0]).toBe(exact);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(matches.map((story) => story.id).sort());
    expect(totals).toEqual([`${matches.length}/false`]);
    // Case makes no difference to the exact title.
    const page = await h.client.listStories({ query: 'HEART', sort: relevance, pageSize: 1 }, reader());
    expect(page.stories.map((story) => story.id)).toEqual([exact]);
  });

  it('reads the exact title the way it reads words: case, punctuation and accents make no difference', async () => {
    const relevance = { field: StorySortField.RELEVANCE, direction: SortDirection.DESCENDING };
    const first = async (query: string) => (await h.client.listStories({ query, sort: relevance, pageSize: 1 }, reader())).stories.map((story) => story.id);
    for (const query of ['heart!', 'Heart.', '¡HEART!', '"heart"?']) expect(await first(query), query).toEqual([exact]);
    for (const query of ['bronte', 'BRONTË', 'brontë!']) expect(await first(query), query).toEqual([bronte]);
    const { ids } = await walk({ query: 'bronte' });
    expect(ids).toHaveLength(4);
  });

  it('finds singulars by plurals and plurals by singulars', async () => {
    const { ids } = await walk({ query: 'hearts' });
    expect(ids).toContain(exact);
    expect(ids).toContain(plural);
    expect(ids).toHaveLength(matches.length);
  });

  it('combines the query with filters exactly, under any sort', async () => {
    const expected = matches
      .filter((story) => story.numWords >= 1000 && story.numWords <= 3000 && story.tagIds.includes('g:1'))
      .sort((a, b) => b.numLikes - a.numLikes || Number(b.id) - Number(a.id))
      .map((story) => story.id);
    expect(expected.length).toBeGreaterThan(100);
    const { ids, totals } = await walk({
      query: 'heart',
      filter: { numWordsMin: 1000, numWordsMax: 3000, tagIds: ['g:1'] },
      sort: { field: StorySortField.NUM_LIKES, direction: SortDirection.DESCENDING },
    });
    expect(ids).toEqual(expected);
    expect(totals).toEqual([`${expected.length}/false`]);
  });

  it('counts the matches per tag on request, as a recount of the same list', async () => {
    const filter = { numWordsMin: 500 };
    const page = await h.client.listStories({ query: 'heart', filter, countTags: true, pageSize: 1 }, reader());
    const recount = new Map<string, number>();
    for (const story of matches.filter((s) => s.numWords >= 500)) for (const tag of story.tagIds) recount.set(tag, (recount.get(tag) ?? 0) + 1);
    const expected = [...recount].map(([tagId, count]) => ({ tagId, count })).sort((a, b) => b.count - a.count || (a.tagId < b.tagId ? -1 : 1));
    expect(page.tagCounts.map(({ tagId, count }) => ({ tagId, count }))).toEqual(expected);
    expect((await h.client.listStories({ query: 'heart', pageSize: 1 }, reader())).tagCounts).toEqual([]);
  });

  it('refuses tag counts together with a bookshelf', async () => {
    await expect(h.client.listStories({ filter: { bookshelfId: '5' }, countTags: true }, reader())).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'invalid_parameter', parameter: 'facets' }],
    });
  });

  it('counts exactly up to 10,000 stories and says when the total is a lower bound', async () => {
    await h.pool.query(`INSERT INTO stories (author_id, title, published, date_published) SELECT 9, 'A wombat', true, now() FROM generate_series(1, 10001)`);
    await h.rebuildIndex();
    const page = await h.client.listStories({ query: 'wombat', pageSize: 1 }, reader());
    expect(page).toMatchObject({ total: 10_000, totalIsLowerBound: true });
    const exactly = await h.client.listStories({ query: 'heart', pageSize: 1 }, reader());
    expect(exactly).toMatchObject({ total: matches.length, totalIsLowerBound: false });
  }, 60_000);
});


describe('the stories of a search page', () => {
  let h: StoriesHarness;
  const writer = author('31');
  /** A story of `writer` published with one published chapter and one draft chapter. */
  const publishedStory = async (title: string, description: string) => {
    const { story } = await h.client.createStory({ title, shortDescription: 'Short.', description, tagIds: [] }, writer);
    await h.client.createChapter({ storyId: story!.id, title: 'One', content: 'Words here.', published: true }, writer);
    await h.client.createChapter({ storyId: story!.id, title: 'Two', content: 'Draft words.', published: false }, writer);
    await h.client.updateStory({ id: story!.id, published: true }, writer);
    return story!.id;
  };
  let short = '';
  let long = '';

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_listed');
    short = await publishedStory('Listed', 'A *short* tale.');
    // Description and HTML together over 16 KiB: read from Postgres (docs/api/stories.md, "Search").
    long = await publishedStory('Listed at length', `A long tale. ${'Words upon words. '.repeat(600)}`);
    await h.indexStories([short, long]);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows each story exactly as GET /stories/:id shows it to the same caller: short and long descriptions, another reader and the author', async () => {
    for (const who of [reader(), writer]) {
      for (const ids of [[short], [long], [short, long]]) {
        const page = await h.client.listStories({ filter: { ids } }, who);
        const shown = await Promise.all(ids.map(async (id) => (await h.client.getStory({ id }, who)).story!));
        expect(page.stories.map((story) => story.id).sort()).toEqual([...ids].sort());
        expect(new Map(page.stories.map((story) => [story.id, story]))).toEqual(new Map(shown.map((story) => [story.id, story])));
      }
    }
    // Another reader sees the published chapter only, the author both.
    expect((await h.client.listStories({ filter: { ids: [short] } }, reader())).stories[0]!.chapterIds).toHaveLength(1);
    expect((await h.client.listStories({ filter: { ids: [short] } }, writer)).stories[0]!.chapterIds).toHaveLength(2);
  });
});
