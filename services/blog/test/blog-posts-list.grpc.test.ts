import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { BlogPostSortField, SortDirection, type ListBlogPostsRequestSchema } from '@inkwell/proto/blog';
import { app, startBlogHarness, user, type BlogHarness } from './harness.js';

type ListInit = MessageInitShape<typeof ListBlogPostsRequestSchema>;

/** A Timestamp with nanosecond precision (what the gateway sends for a date bound). */
function at(iso: string, nanos?: number): Timestamp {
  const timestamp = timestampFromDate(new Date(iso));
  if (nanos !== undefined) timestamp.nanos = nanos;
  return timestamp;
}

describe('ListBlogPosts over gRPC: filters, sorts, search and keyset pages', () => {
  let h: BlogHarness;
  const id: Record<string, string> = {};
  const reader = app('list-reader');

  async function post(name: string, authorId: string, init: { title: string; content: string; tags?: string[] }, datePosted: string, numViews: number) {
    const { blogPost } = await h.client.createBlogPost(init, user(authorId));
    id[name] = blogPost!.id;
    await h.pool.query('UPDATE blog_posts SET date_posted = $2, date_modified = $2, num_views = $3 WHERE id = $1', [blogPost!.id, datePosted, numViews]);
  }

  async function site(name: string, title: string, tag: string | undefined, datePosted: string, numViews: number) {
    const created = await h.posts.createSitePost({ title, content: `${title} from the site.`, ...(tag === undefined ? {} : { tag }) });
    id[name] = created.id;
    await h.pool.query('UPDATE blog_posts SET date_posted = $2, num_views = $3 WHERE id = $1', [created.id, datePosted, numViews]);
  }

  async function list(request: ListInit): Promise<string[]> {
    const { blogPosts } = await h.client.listBlogPosts({ pageSize: 100, ...request }, reader);
    return blogPosts.map((p) => p.id);
  }

  const names = (...keys: string[]) => keys.map((key) => id[key]);

  beforeAll(async () => {
    h = await startBlogHarness('inkwell_test_blog_list');
    await post('dragonTitle', '100', { title: 'Dragons of the north', content: 'Cold winds and ice.', tags: ['fantasy'] }, '2024-03-01T00:00:00.000Z', 5);
    await post('dayEnd', '100', { title: 'Cooking notes', content: 'Recipes for a long winter.', tags: ['Food'] }, '2024-03-01T23:59:59.999Z', 10);
    await post('nextDay', '101', { title: 'Weekly update', content: 'Progress on my novel about knights.', tags: ['writing', 'Update'] }, '2024-03-02T00:00:00.000Z', 5);
    await post('dragonTag', '101', { title: 'Character sheets', content: 'Names and ages of my heroes.', tags: ['dragons'] }, '2024-03-03T12:00:00.000Z', 1);
    await post('dragonContentOnce', '102', { title: 'Market day', content: 'We bought fruit. A dragon mask was on sale; it was the only odd thing among a great many ordinary stalls and ordinary people.' }, '2024-03-04T12:00:00.000Z', 7);
    await post('tieA', '102', { title: 'Twin one', content: 'Same time.' }, '2024-03-05T08:00:00.000Z', 3);
    await post('tieB', '102', { title: 'Twin two', content: 'Same time.' }, '2024-03-05T08:00:00.000Z', 3);
    await site('siteAnnouncement', 'Maintenance window', 'Announcement', '2024-02-28T09:00:00.000Z', 50);
    await site('siteUntagged', 'Welcome to Inkwell', undefined, '2024-03-06T09:00:00.000Z', 0);
    for (let i = 0; i < 21; i++) await post(`filler${i}`, '200', { title: `Filler ${i}`, content: 'Nothing to see.' }, `2023-01-01T00:00:${String(i).padStart(2, '0')}.000Z`, 0);
  });

  afterAll(async () => {
    await h?.close();
  });

  const newestFirst = () => [...names('siteUntagged', 'tieB', 'tieA', 'dragonContentOnce', 'dragonTag', 'nextDay', 'dayEnd', 'dragonTitle', 'siteAnnouncement')];
  const fillersNewestFirst = () => Array.from({ length: 21 }, (_, i) => id[`filler${20 - i}`]);

  describe('sort', () => {
    it('defaults to date_posted descending, ties by id descending', async () => {
      expect(await list({})).toEqual([...newestFirst(), ...fillersNewestFirst()]);
    });

    it('sorts by date_posted ascending with ties by id ascending', async () => {
      expect(await list({ sort: { field: BlogPostSortField.DATE_POSTED, direction: SortDirection.ASCENDING } })).toEqual([...newestFirst(), ...fillersNewestFirst()].reverse());
    });

    it('sorts by num_views in both directions, ties by id in the same direction', async () => {
      const byViews = await list({ sort: { field: BlogPostSortField.NUM_VIEWS, direction: SortDirection.DESCENDING }, filter: { authorId: '100' } });
      expect(byViews).toEqual(names('dayEnd', 'dragonTitle'));
      const all = await list({ sort: { field: BlogPostSortField.NUM_VIEWS, direction: SortDirection.DESCENDING } });
      expect(all.slice(0, 8)).toEqual(names('siteAnnouncement', 'dayEnd', 'dragonContentOnce', 'nextDay', 'dragonTitle', 'tieB', 'tieA', 'dragonTag'));
      const ascending = await list({ sort: { field: BlogPostSortField.NUM_VIEWS, direction: SortDirection.ASCENDING } });
      expect(ascending).toEqual([...all].reverse());
    });

    it('refuses search text over 500 characters after trimming (docs/api/lists.md), and takes 500', async () => {
      await expect(h.client.listBlogPosts({ query: '𝔁'.repeat(501) }, reader)).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        details: [{ reason: 'invalid_parameter', parameter: 'query' }],
      });
      await expect(h.client.listBlogPosts({ query: ` ${'𝔁'.repeat(500)} ` }, reader)).resolves.toMatchObject({ blogPosts: [] });
    });

    it('refuses a blank or over-long tag, or more than 100 tags, in filter[tags] and filter[site_post_tag], naming the parameter (docs/api/blog.md)', async () => {
      const cases: [{ tags?: string[]; sitePostTag?: string }, string][] = [
        [{ tags: ['a', ' '] }, 'filter[tags]'],
        [{ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'filter[tags]'],
        [{ tags: ['x'.repeat(51)] }, 'filter[tags]'],
        [{ sitePostTag: ' ' }, 'filter[site_post_tag]'],
      ];
      for (const [filter, parameter] of cases) {
        await expect(h.client.listBlogPosts({ filter }, reader)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ reason: 'invalid_parameter', parameter }] });
      }
      await expect(h.client.listBlogPosts({ filter: { tags: [` ${'X'.repeat(50)} `] } }, reader)).resolves.toMatchObject({ blogPosts: [] });
    });

    it('refuses relevance without a query (invalid_sort)', async () => {
      await expect(h.client.listBlogPosts({ sort: { field: BlogPostSortField.RELEVANCE, direction: SortDirection.DESCENDING } }, reader)).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        details: [{ reason: 'invalid_sort', parameter: 'sort' }],
      });
    });
  });

  describe('search', () => {
    it('finds matches in title, tags and content, best first: title, then tags, then content', async () => {
      const ranked = await list({ query: 'dragon', sort: { field: BlogPostSortField.RELEVANCE, direction: SortDirection.DESCENDING } });
      expect(ranked).toEqual(names('dragonTitle', 'dragonTag', 'dragonContentOnce'));
      const reversed = await list({ query: 'dragon', sort: { field: BlogPostSortField.RELEVANCE, direction: SortDirection.ASCENDING } });
      expect(reversed).toEqual([...ranked].reverse());
    });

    it('filters by the query under any sort, and combines with filters', async () => {
      expect(await list({ query: 'dragons' })).toEqual(names('dragonContentOnce', 'dragonTag', 'dragonTitle'));
      expect(await list({ query: 'dragon', filter: { authorId: '101' } })).toEqual(names('dragonTag'));
      expect(await list({ query: 'maintenance' })).toEqual(names('siteAnnouncement'));
    });

    it('understands phrases and exclusions, and finds nothing for words that are not there', async () => {
      expect(await list({ query: '"weekly update"' })).toEqual(names('nextDay'));
      expect(await list({ query: 'dragon -market' })).toEqual(names('dragonTag', 'dragonTitle'));
      expect(await list({ query: 'zeppelin' })).toEqual([]);
      expect(await list({ query: '   ' })).toHaveLength(30);
    });
  });

  describe('filters', () => {
    it('filter ids keeps exactly those posts (unknown ids match nothing)', async () => {
      expect(await list({ filter: { ids: [id.dragonTitle!, id.nextDay!, id.siteAnnouncement!, '999999'] } })).toEqual(names('nextDay', 'dragonTitle', 'siteAnnouncement'));
    });

    it('filter author keeps that author’s posts; an unknown author gives an empty list', async () => {
      expect(await list({ filter: { authorId: '100' } })).toEqual(names('dayEnd', 'dragonTitle'));
      expect(await list({ filter: { authorId: '424242' } })).toEqual([]);
    });

    it('filter tags keeps posts with ANY of the tags, whatever their case', async () => {
      expect(await list({ filter: { tags: ['dragons', 'UPDATE'] } })).toEqual(names('dragonTag', 'nextDay'));
      expect(await list({ filter: { tags: ['food'] } })).toEqual(names('dayEnd'));
      expect(await list({ filter: { tags: ['nope'] } })).toEqual([]);
    });

    it('filter site_post and site_post_tag', async () => {
      expect(await list({ filter: { sitePost: true } })).toEqual(names('siteUntagged', 'siteAnnouncement'));
      const userPosts = await list({ filter: { sitePost: false } });
      expect(userPosts).toHaveLength(28);
      expect(userPosts).not.toContain(id.siteAnnouncement);
      expect(await list({ filter: { sitePostTag: ' ANNOUNCEMENT' } })).toEqual(names('siteAnnouncement'));
      expect(await list({ filter: { sitePostTag: 'other' } })).toEqual([]);
      expect(await list({ filter: { sitePost: false, sitePostTag: 'announcement' } })).toEqual([]);
    });

    it('filter date_posted: a whole UTC day includes its first and last millisecond, and nothing of the next day', async () => {
      const day = { datePostedMin: at('2024-03-01T00:00:00Z', 0), datePostedMax: at('2024-03-01T23:59:59Z', 999_999_999) };
      expect(await list({ filter: day })).toEqual(names('dayEnd', 'dragonTitle'));
    });

    it('filter date_posted: exact instants are inclusive at both ends; open ends work', async () => {
      expect(await list({ filter: { datePostedMin: at('2024-03-01T23:59:59.999Z'), datePostedMax: at('2024-03-02T00:00:00.000Z') } })).toEqual(names('nextDay', 'dayEnd'));
      expect(await list({ filter: { datePostedMin: at('2024-03-01T23:59:59.999Z', 999_000_001) } })).not.toContain(id.dayEnd);
      expect(await list({ filter: { datePostedMin: at('2024-03-05T08:00:00Z') } })).toEqual(names('siteUntagged', 'tieB', 'tieA'));
      expect(await list({ filter: { datePostedMax: at('2024-02-28T09:00:00Z') } })).toEqual([id.siteAnnouncement, ...fillersNewestFirst()]);
      expect(await list({ filter: { datePostedMax: at('2024-02-28T08:59:59.999Z') } })).toEqual(fillersNewestFirst());
    });

    it('refuses a date range whose minimum is after its maximum', async () => {
      await expect(list({ filter: { datePostedMin: at('2024-03-02T00:00:00Z'), datePostedMax: at('2024-03-01T00:00:00Z') } })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        details: [{ reason: 'invalid_parameter', parameter: 'filter[date_posted]' }],
      });
    });

    it('combines filters with AND', async () => {
      expect(await list({ filter: { authorId: '100', tags: ['food', 'fantasy'], datePostedMin: at('2024-03-01T12:00:00Z') } })).toEqual(names('dayEnd'));
    });

    it('refuses more than 100 ids', async () => {
      const ids = Array.from({ length: 101 }, (_, i) => String(i + 1));
      await expect(list({ filter: { ids } })).rejects.toMatchObject({ details: [{ parameter: 'filter[ids]' }] });
    });
  });

  describe('keyset pages', () => {
    async function pages(request: ListInit, pageSize: number): Promise<{ ids: string[]; sizes: number[] }> {
      const ids: string[] = [];
      const sizes: number[] = [];
      let after = '';
      for (let guard = 0; guard < 100; guard++) {
        const page = await h.client.listBlogPosts({ ...request, pageSize, after }, reader);
        ids.push(...page.blogPosts.map((p) => p.id));
        sizes.push(page.blogPosts.length);
        if (page.nextAfter === '') return { ids, sizes };
        after = page.nextAfter;
      }
      throw new Error('too many pages');
    }

    const sorts: Array<[string, ListInit]> = [
      ['default', {}],
      ['date ascending', { sort: { field: BlogPostSortField.DATE_POSTED, direction: SortDirection.ASCENDING } }],
      ['views descending', { sort: { field: BlogPostSortField.NUM_VIEWS, direction: SortDirection.DESCENDING } }],
      ['views ascending', { sort: { field: BlogPostSortField.NUM_VIEWS, direction: SortDirection.ASCENDING } }],
      ['relevance', { query: 'dragon', sort: { field: BlogPostSortField.RELEVANCE, direction: SortDirection.DESCENDING } }],
      ['filtered', { filter: { authorId: '102' } }],
    ];

    it.each(sorts)('pages through %s without gaps or repeats, in the same order as one big page', async (_name, request) => {
      const whole = await list(request);
      for (const size of [1, 2, 3]) {
        const paged = await pages(request, size);
        expect(paged.ids).toEqual(whole);
        expect(paged.sizes.slice(0, -1).every((n) => n === size)).toBe(true);
      }
    });

    it('ends with an empty next_after on a page that is exactly full (no empty extra page)', async () => {
      const three = await h.client.listBlogPosts({ filter: { authorId: '102' }, pageSize: 3 }, reader);
      expect(three.blogPosts).toHaveLength(3);
      expect(three.nextAfter).toBe('');
      const two = await h.client.listBlogPosts({ filter: { authorId: '102' }, pageSize: 2 }, reader);
      expect(two.nextAfter).not.toBe('');
      const rest = await h.client.listBlogPosts({ filter: { authorId: '102' }, pageSize: 2, after: two.nextAfter }, reader);
      expect(rest.blogPosts.map((p) => p.id)).toEqual(names('dragonContentOnce'));
      expect(rest.nextAfter).toBe('');
    });

    it('uses 20 posts per page by default and refuses sizes over 100 or below 0', async () => {
      const page = await h.client.listBlogPosts({}, reader);
      expect(page.blogPosts).toHaveLength(20);
      expect(page.nextAfter).not.toBe('');
      expect((await h.client.listBlogPosts({ pageSize: 100 }, reader)).blogPosts).toHaveLength(30);
      for (const pageSize of [101, -1]) {
        await expect(h.client.listBlogPosts({ pageSize }, reader)).rejects.toMatchObject({ details: [{ reason: 'invalid_parameter', parameter: 'page[size]' }] });
      }
    });

    it('refuses a malformed cursor, or one made for another sort, with invalid_cursor', async () => {
      const first = await h.client.listBlogPosts({ pageSize: 2 }, reader);
      const otherSort = { field: BlogPostSortField.NUM_VIEWS, direction: SortDirection.DESCENDING };
      for (const request of [{ after: 'garbage' }, { after: first.nextAfter, sort: otherSort }]) {
        await expect(h.client.listBlogPosts({ pageSize: 2, ...request }, reader)).rejects.toMatchObject({
          code: ErrorCode.INVALID_ARGUMENT,
          details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }],
        });
      }
    });
  });

  it('lists no content unless asked, and intro always', async () => {
    const { blogPosts } = await h.client.listBlogPosts({ filter: { ids: [id.dragonTitle!] } }, reader);
    expect(blogPosts[0]).toMatchObject({ intro: 'Cold winds and ice.', tags: ['fantasy'] });
    expect(blogPosts[0]?.content).toBeUndefined();
  });
});
