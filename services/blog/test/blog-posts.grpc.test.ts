import { fromBinary } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { BlogPostSortField, SortDirection } from '@inkwell/proto/blog';
import { EventEnvelopeSchema, type EventEnvelope } from '@inkwell/proto/events';
import { parseCreateSitePostArgs } from '../src/cli/create-site-post.command.js';
import { app, startBlogHarness, user, type BlogHarness } from './harness.js';
import { databaseClockPast } from '@inkwell/testing';

const MiB = 1024 * 1024;

describe('BlogService writes, rules and views over gRPC', () => {
  let h: BlogHarness;

  beforeAll(async () => {
    h = await startBlogHarness('inkwell_test_blog_grpc');
    await h.story('501', true);
    await h.story('502', true);
    await h.story('503', false);
  });

  afterAll(async () => {
    await h?.close();
  });

  async function events(key: string): Promise<EventEnvelope[]> {
    const { rows } = await h.pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE key = $1 ORDER BY id', [key]);
    return rows.map((row) => fromBinary(EventEnvelopeSchema, row.payload));
  }

  async function create(authorId = '1', init: { title?: string; content?: string; tags?: string[]; storyIds?: string[] } = {}) {
    const { blogPost } = await h.client.createBlogPost({ title: 'A post', content: 'Some *text*', ...init }, user(authorId));
    return blogPost!;
  }

  it('creates a post as the caller, renders sanitised HTML, derives the intro and normalises tags', async () => {
    const post = await create('7', {
      title: '  My first post ',
      content: '# Hi\n\nHello <script>alert(1)</script> [x](javascript:alert(1)) **world**',
      tags: [' Writing ', 'writing', 'Slice  of life'],
      storyIds: ['502', '501'],
    });
    expect(post.authorId).toBe('7');
    expect(post.title).toBe('My first post');
    expect(post.tags).toEqual(['writing', 'slice of life']);
    expect(post.storyIds).toEqual(['502', '501']);
    expect(post.sitePost).toBe(false);
    expect(post.sitePostTag).toBeUndefined();
    expect(post.numViews).toBe(0);
    expect(post.contentHtml).toContain('<strong>world</strong>');
    expect(post.contentHtml).not.toMatch(/<script|href="javascript:/);
    expect(post.intro).toBe('Hi Hello <script>alert(1)</script> [x](javascript:alert(1)) world');

    const fetched = (await h.client.getBlogPost({ id: post.id }, app('reader-app'))).blogPost!;
    expect(fetched.content).toBeUndefined();
    expect(fetched.contentHtml).toBeUndefined();
    expect(fetched.title).toBe('My first post');
    expect(fetched.datePosted).toEqual(post.datePosted);
  });

  it('writes BlogPostCreated with the author and site_post for the users service to count', async () => {
    const post = await create('8', { storyIds: ['501'] });
    const [created] = await events(post.id);
    expect(created?.payload.case).toBe('blogPostCreated');
    const snapshot = created?.payload.case === 'blogPostCreated' ? created.payload.value.blogPost : undefined;
    expect(snapshot).toMatchObject({ blogPostId: post.id, authorId: '8', sitePost: false, storyIds: ['501'], title: 'A post' });
  });

  it('rejects missing, blank and over-long fields with one validation_failed entry per problem', async () => {
    const missing = h.client.createBlogPost({ title: '', content: '  ' }, user('1'));
    await expect(missing).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [
        { reason: 'validation_failed', pointer: '/data/attributes/title' },
        { reason: 'validation_failed', pointer: '/data/attributes/content' },
      ],
    });
    await expect(h.client.createBlogPost({ title: 'x'.repeat(201), content: 'ok' }, user('1'))).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/title' }] });
    await expect(h.client.createBlogPost({ title: 'ok', content: 'x'.repeat(MiB + 1) }, user('1'))).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/content' }] });
    await expect(h.client.createBlogPost({ title: 'ok', content: 'ok', tags: ['a,b'] }, user('1'))).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/tags/0' }] });
    const tooMany = Array.from({ length: 101 }, () => 'same');
    await expect(h.client.createBlogPost({ title: 'ok', content: 'ok', tags: tooMany }, user('1'))).rejects.toMatchObject({ details: [{ reason: 'validation_failed', pointer: '/data/attributes/tags' }] });
  });

  it('counts the title in characters after trimming, the content in bytes of UTF-8, and at most 25 stories', async () => {
    await expect(create('1', { title: ` ${'😀'.repeat(200)} ` })).resolves.toMatchObject({ title: '😀'.repeat(200) });
    await expect(h.client.createBlogPost({ title: 'ok', content: `${'x'.repeat(MiB - 1)}é` }, user('1'))).rejects.toMatchObject({
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/content', detail: 'The content is larger than 1048576 bytes (1 MiB) of UTF-8.' }],
    });
    const storyIds = Array.from({ length: 26 }, (_, index) => String(index + 1));
    await expect(h.client.createBlogPost({ title: 'ok', content: 'ok', storyIds }, user('1'))).rejects.toMatchObject({
      details: [{ reason: 'validation_failed', pointer: '/data/relationships/stories', detail: 'A blog post can be tagged with at most 25 stories.' }],
    });
  });

  it('accepts exactly 200 characters of title and 1 MiB of content, and still searches it', async () => {
    const post = await create('9', { title: 't'.repeat(200), content: `needle ${'lorem ipsum '.repeat(90_000)}`.slice(0, MiB) });
    expect(post.content?.length).toBe(MiB);
    const found = await h.client.listBlogPosts({ query: 'needle', filter: { authorId: '9' } }, app('a'));
    expect(found.blogPosts.map((p) => p.id)).toEqual([post.id]);
  });

  it('links only published stories: unknown or unpublished ids are validation_failed on /data/relationships/stories', async () => {
    for (const storyIds of [['999'], ['503'], ['501', '503']]) {
      await expect(h.client.createBlogPost({ title: 't', content: 'c', storyIds }, user('1'))).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        details: [{ reason: 'validation_failed', pointer: '/data/relationships/stories' }],
      });
    }
  });

  it('shows a link only while its story is published', async () => {
    await h.story('510', true);
    const post = await create('1', { storyIds: ['510', '501'] });
    await h.story('510', false);
    expect((await h.client.getBlogPost({ id: post.id }, app('a'))).blogPost?.storyIds).toEqual(['501']);
    await h.story('510', true);
    expect((await h.client.getBlogPost({ id: post.id }, app('a'))).blogPost?.storyIds).toEqual(['510', '501']);
  });

  it('requires a user with write_blog_posts to write', async () => {
    await expect(h.client.createBlogPost({ title: 't', content: 'c' }, user('1', []))).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      details: [{ reason: 'insufficient_scope', scope: 'write_blog_posts' }],
    });
    // The scope comes first; an app acting alone has no user to write as (the gateway refuses both first).
    await expect(h.client.createBlogPost({ title: 't', content: 'c' }, app('some-app'))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'insufficient_scope' }] });
    const appWriter = { caller: { ...app('some-app').caller, scopes: ['write_blog_posts'] } };
    await expect(h.client.createBlogPost({ title: 't', content: 'c' }, appWriter)).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
  });

  it('lets the author change the fields that are set, and only those', async () => {
    const post = await create('11', { tags: ['one'], storyIds: ['501'] });
    // The database stamps date_modified: wait until its clock has moved past the post’s, not a fixed time.
    await databaseClockPast(h.pool, timestampDate(post.dateModified!));
    const { blogPost: titled } = await h.client.updateBlogPost({ id: post.id, title: 'New title' }, user('11'));
    expect(titled).toMatchObject({ title: 'New title', content: 'Some *text*', tags: ['one'], storyIds: ['501'] });
    expect(Number(titled!.dateModified!.seconds) * 1000 + titled!.dateModified!.nanos / 1e6).toBeGreaterThan(Number(post.dateModified!.seconds) * 1000 + post.dateModified!.nanos / 1e6);
    expect(titled!.datePosted).toEqual(post.datePosted);

    const { blogPost: rewritten } = await h.client.updateBlogPost({ id: post.id, content: 'Plain _new_ text', tags: { tags: [] }, stories: { storyIds: ['502'] } }, user('11'));
    expect(rewritten).toMatchObject({ title: 'New title', content: 'Plain _new_ text', contentHtml: '<p>Plain <em>new</em> text</p>', intro: 'Plain new text', tags: [], storyIds: ['502'] });

    const [, updated] = await events(post.id);
    expect(updated?.payload.case).toBe('blogPostUpdated');
  });

  it('answers 404 before 403, and 403 forbidden to anyone but the author', async () => {
    const post = await create('12');
    await expect(h.client.updateBlogPost({ id: post.id, title: 'x' }, user('13'))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
    await expect(h.client.deleteBlogPost({ id: post.id }, user('13'))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
    await expect(h.client.updateBlogPost({ id: '987654', title: 'x' }, user('13'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.updateBlogPost({ id: post.id, title: '' }, user('12'))).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/title' }] });
    expect((await h.client.getBlogPost({ id: post.id }, app('a'))).blogPost?.title).toBe('A post');
  });

  it('with validate_only, refuses in the same order and changes nothing for the author (docs/api/blog.md)', async () => {
    const post = await create('15');
    const site = await h.posts.createSitePost({ title: 'Notice', content: 'Read me.' });
    const check = (id: string, caller: ReturnType<typeof user>) => h.client.updateBlogPost({ id, title: 'changed', validateOnly: true }, caller);
    await expect(check('987654', user('15'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(check(site.id, user('15'))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'site_post_immutable' }] });
    await expect(check(post.id, user('16'))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
    expect((await check(post.id, user('15'))).blogPost?.title).toBe('A post');
    expect((await h.client.getBlogPost({ id: post.id }, app('a'))).blogPost?.title).toBe('A post');
    expect(await events(post.id)).toHaveLength(1);
  });

  it('deletes the author’s post and writes BlogPostDeleted with the author', async () => {
    const post = await create('14');
    await h.client.deleteBlogPost({ id: post.id }, user('14'));
    await expect(h.client.getBlogPost({ id: post.id }, app('a'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.deleteBlogPost({ id: post.id }, user('14'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    const deleted = (await events(post.id)).at(-1);
    expect(deleted?.payload.case).toBe('blogPostDeleted');
    expect(deleted?.payload.case === 'blogPostDeleted' && deleted.payload.value.blogPost).toMatchObject({ authorId: '14', sitePost: false });
  });

  it('keeps site posts immutable through the API whatever the caller, and marks their events', async () => {
    const site = await h.posts.createSitePost({ title: 'Maintenance', content: 'We will be down.', tag: ' Announcement ' });
    expect(site).toMatchObject({ sitePost: true, sitePostTag: 'announcement', authorId: undefined });
    const allScopes = ['write_blog_posts', 'read_user', 'write_user', 'read_stories', 'write_stories'];
    for (const caller of [user('1', allScopes), user('2')]) {
      await expect(h.client.updateBlogPost({ id: site.id, title: 'hacked' }, caller)).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        details: [{ reason: 'site_post_immutable' }],
      });
      await expect(h.client.deleteBlogPost({ id: site.id }, caller)).rejects.toMatchObject({ details: [{ reason: 'site_post_immutable' }] });
    }
    const fetched = (await h.client.getBlogPost({ id: site.id }, app('a'))).blogPost!;
    expect(fetched).toMatchObject({ title: 'Maintenance', sitePost: true, sitePostTag: 'announcement', authorId: '0' });
    const [created] = await events(site.id);
    expect(created?.payload.case === 'blogPostCreated' && created.payload.value.blogPost).toMatchObject({ sitePost: true, authorId: '0', sitePostTag: 'announcement' });
  });

  it('validates site posts like user posts', async () => {
    await expect(parseCreateSitePostArgs(['--title', '', '--content', 'x'])).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/title' }] });
    await expect(h.posts.createSitePost({ title: 'x', content: 'y', tag: 'a,b' })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
  });

  describe('views', () => {
    it('counts a reader once per 24 hours, and only when the content is read', async () => {
      const post = await create('20');
      const reader = user('21', []);
      expect((await h.client.getBlogPost({ id: post.id }, reader)).blogPost?.numViews).toBe(0);
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, reader)).blogPost?.numViews).toBe(1);
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, reader)).blogPost?.numViews).toBe(1);
      // The same user through another app is the same reader.
      const sameUserOtherApp = { caller: { ...reader.caller, appId: 'other-app' } };
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, sameUserOtherApp)).blogPost?.numViews).toBe(1);
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, user('22', []))).blogPost?.numViews).toBe(2);
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, app('crawler'))).blogPost?.numViews).toBe(3);
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, app('crawler'))).blogPost?.numViews).toBe(3);
      // An internal call (no user, no app) is nobody's read.
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, { caller: { requestId: 'internal', scopes: [] } })).blogPost?.numViews).toBe(3);

      const viewed = (await events(post.id)).filter((event) => event.payload.case === 'blogPostViewed');
      expect(viewed.map((event) => event.payload.case === 'blogPostViewed' && event.payload.value.reader)).toEqual([
        { case: 'readerUserId', value: '21' },
        { case: 'readerUserId', value: '22' },
        { case: 'readerAppId', value: 'crawler' },
      ]);
    });

    it('holds the window for 24 hours, and counts again once it has passed', async () => {
      const post = await create('23');
      await h.client.getBlogPost({ id: post.id, includeContent: true }, user('24', []));
      const postedMs = Number(post.datePosted!.seconds) * 1000 + post.datePosted!.nanos / 1e6;
      const keys = await h.redis.keys(`blog:view:${post.id}:${postedMs}:u:24`);
      expect(keys).toHaveLength(1);
      const ttl = await h.redis.ttl(keys[0]!);
      expect(ttl).toBeGreaterThan(86_400 - 60);
      expect(ttl).toBeLessThanOrEqual(86_400);
      await h.redis.del(keys[0]!);
      expect((await h.client.getBlogPost({ id: post.id, includeContent: true }, user('24', []))).blogPost?.numViews).toBe(2);
    });

    it('counts every reader when many read overlapping pages at once', async () => {
      for (let i = 0; i < 8; i++) await create('40');
      const readers = Array.from({ length: 20 }, (_, i) => user(String(4000 + i), []));
      await Promise.all(
        readers.map((reader, i) =>
          h.client.listBlogPosts({ filter: { authorId: '40' }, includeContent: true, sort: { field: i % 2 === 0 ? BlogPostSortField.DATE_POSTED : BlogPostSortField.NUM_VIEWS, direction: SortDirection.ASCENDING } }, reader),
        ),
      );
      const { blogPosts } = await h.client.listBlogPosts({ filter: { authorId: '40' } }, app('a'));
      expect(blogPosts.map((p) => p.numViews)).toEqual(Array(8).fill(20));
    });

    it('counts the posts of a list page read with content, once each', async () => {
      const a = await create('25');
      const b = await create('25');
      const reader = user('26', []);
      const first = await h.client.listBlogPosts({ filter: { authorId: '25' }, includeContent: true }, reader);
      expect(first.blogPosts.map((p) => [p.id, p.numViews, p.content !== undefined])).toEqual([
        [b.id, 1, true],
        [a.id, 1, true],
      ]);
      const again = await h.client.listBlogPosts({ filter: { authorId: '25' }, includeContent: true }, reader);
      expect(again.blogPosts.map((p) => p.numViews)).toEqual([1, 1]);
      const withoutContent = await h.client.listBlogPosts({ filter: { authorId: '25' } }, user('27', []));
      expect(withoutContent.blogPosts.map((p) => [p.numViews, p.content])).toEqual([
        [1, undefined],
        [1, undefined],
      ]);
    });
  });

  it('ends a page with content early at 16 MiB of text, and the next page goes on from there', async () => {
    // 1 MiB of words renders to 1 MiB + 8 bytes of HTML: 8 posts are just over 16 MiB, so a page holds 7.
    const heavy = 'lorem ipsum '.repeat(MiB / 12 + 1).slice(0, MiB);
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) ids.push((await create('30', { content: heavy })).id);
    const newestFirst = [...ids].reverse();
    const first = await h.client.listBlogPosts({ filter: { authorId: '30' }, includeContent: true, pageSize: 20 }, user('31', []));
    expect(first.blogPosts.map((p) => p.id)).toEqual(newestFirst.slice(0, 7));
    expect(first.nextAfter).not.toBe('');
    const second = await h.client.listBlogPosts({ filter: { authorId: '30' }, includeContent: true, pageSize: 20, after: first.nextAfter }, user('31', []));
    expect(second.blogPosts.map((p) => p.id)).toEqual(newestFirst.slice(7));
    expect(second.nextAfter).toBe('');
    const light = await h.client.listBlogPosts({ filter: { authorId: '30' }, pageSize: 20 }, user('31', []));
    expect(light.blogPosts).toHaveLength(9);
    expect(light.nextAfter).toBe('');
  });

  it('answers NOT_FOUND for unknown ids and id 0', async () => {
    for (const id of ['0', '123456789', '9223372036854775807']) {
      await expect(h.client.getBlogPost({ id }, app('a'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    }
  });
});
