import { closeMarkdown } from '@inkwell/markdown';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Caller } from '../domain/blog-post.js';
import { memoryBlog } from '../testing/memory.repositories.js';

const author: Caller = { userId: '10', scopes: ['write_blog_posts'] };
const other: Caller = { userId: '11', scopes: ['write_blog_posts'] };
const app: Caller = { appId: 'app', scopes: [] };
const post = { title: 'News', content: 'Hello **world**.', tags: [], storyIds: [] };
const list = { query: '', filter: {}, sort: undefined, pageSize: 0, after: '', includeContent: false };

afterAll(closeMarkdown);

describe('BlogPostService writing', () => {
  it('posts as the caller, renders the content, derives the intro and normalises tags', async () => {
    const { posts } = memoryBlog();
    const created = await posts.createBlogPost({ ...post, tags: ['  Fan Art ', 'fan art'] }, author);

    expect(created).toMatchObject({ authorId: '10', title: 'News', intro: 'Hello world.', sitePost: false, numViews: 0 });
    expect(created.contentHtml).toContain('<strong>world</strong>');
    expect(created.tags).toHaveLength(1);
  });

  it('links only published stories: each unknown or unpublished one is validation_failed on /data/relationships/stories', async () => {
    const { posts, stories } = memoryBlog();
    stories.published.add('100');

    const refused = await posts.createBlogPost({ ...post, storyIds: ['100', '101', '102'] }, author).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((refused as { details: unknown[] }).details).toEqual([
      expect.objectContaining({ reason: 'validation_failed', pointer: '/data/relationships/stories', detail: 'Story 101 does not exist or is not published.' }),
      expect.objectContaining({ reason: 'validation_failed', pointer: '/data/relationships/stories', detail: 'Story 102 does not exist or is not published.' }),
    ]);
    expect((await posts.createBlogPost({ ...post, storyIds: ['100'] }, author)).storyIds).toEqual(['100']);
  });

  it('lets the author change the fields that are set, and only those', async () => {
    const { posts } = memoryBlog();
    const created = await posts.createBlogPost({ ...post, tags: ['news'] }, author);

    const updated = await posts.updateBlogPost(created.id, { title: 'Newer' }, author);
    expect(updated).toMatchObject({ title: 'Newer', content: post.content, tags: ['news'] });
    expect(updated.dateModified.getTime()).toBeGreaterThan(created.dateModified.getTime());
    expect((await posts.updateBlogPost(created.id, { content: '*Changed*' }, author)).intro).toBe('Changed');
  });

  it('answers 404 before 403, and 403 forbidden to anyone but the author', async () => {
    const { posts } = memoryBlog();
    const created = await posts.createBlogPost(post, author);
    const forbidden = { code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] };

    await expect(posts.updateBlogPost('999', { title: 'x' }, other)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(posts.updateBlogPost(created.id, { title: 'x' }, other)).rejects.toMatchObject(forbidden);
    await expect(posts.updateBlogPost(created.id, { title: '' }, other)).rejects.toMatchObject(forbidden);
    await expect(posts.checkEditable(created.id, other)).rejects.toMatchObject(forbidden);
    await expect(posts.deleteBlogPost(created.id, other)).rejects.toMatchObject(forbidden);
    expect((await posts.getBlogPost(created.id, false, other)).title).toBe('News');
  });

  it('deletes the author’s post', async () => {
    const { posts } = memoryBlog();
    const created = await posts.createBlogPost(post, author);

    await posts.deleteBlogPost(created.id, author);
    await expect(posts.getBlogPost(created.id, false, author)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(posts.deleteBlogPost(created.id, author)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps site posts immutable through the API, whoever asks', async () => {
    const { posts } = memoryBlog();
    const site = await posts.createSitePost({ title: 'Maintenance', content: 'Tonight.', tag: ' Announcements ' });
    expect(site).toMatchObject({ sitePost: true, authorId: undefined, sitePostTag: 'announcements' });
    const immutable = { code: 'PERMISSION_DENIED', details: [{ reason: 'site_post_immutable' }] };

    await expect(posts.updateBlogPost(site.id, { title: 'Changed' }, author)).rejects.toMatchObject(immutable);
    await expect(posts.deleteBlogPost(site.id, other)).rejects.toMatchObject(immutable);
    await expect(posts.checkEditable(site.id, author)).rejects.toMatchObject(immutable);
  });
});

describe('BlogPostService reading', () => {
  it('shows a link only while its story is published', async () => {
    const { posts, stories } = memoryBlog();
    stories.published.add('100');
    const created = await posts.createBlogPost({ ...post, storyIds: ['100'] }, author);

    stories.published.delete('100');
    expect((await posts.getBlogPost(created.id, false, app)).storyIds).toEqual([]);
    stories.published.add('100');
    expect((await posts.getBlogPost(created.id, false, app)).storyIds).toEqual(['100']);
  });

  it('counts a reader once, and only when the content is read', async () => {
    const { posts } = memoryBlog();
    const created = await posts.createBlogPost(post, author);

    expect((await posts.getBlogPost(created.id, false, other)).numViews).toBe(0);
    expect((await posts.getBlogPost(created.id, true, other)).numViews).toBe(1);
    expect((await posts.getBlogPost(created.id, true, other)).numViews).toBe(1);
    expect((await posts.getBlogPost(created.id, true, app)).numViews).toBe(2);
    expect((await posts.getBlogPost(created.id, true, { scopes: [] })).numViews).toBe(2);
  });

  it('counts each post of a page read with content once, and none of a page without', async () => {
    const { posts, store } = memoryBlog();
    const first = await posts.createBlogPost(post, author);
    const second = await posts.createBlogPost(post, author);

    await posts.listBlogPosts(list, other);
    expect(store.views).toEqual([]);
    const page = await posts.listBlogPosts({ ...list, includeContent: true }, other);
    expect(page.posts.map((found) => [found.id, found.numViews])).toEqual([[second.id, 1], [first.id, 1]]);
  });

  it('never fails a read for a view it could not count, and lets a later read count it', async () => {
    const { posts, store } = memoryBlog();
    const created = await posts.createBlogPost(post, author);
    vi.spyOn(store, 'recordViews').mockRejectedValueOnce(new Error('database down'));

    expect((await posts.getBlogPost(created.id, true, other)).numViews).toBe(0);
    expect((await posts.getBlogPost(created.id, true, other)).numViews).toBe(1);
  });

  it('lists newest first by default, page by page; refuses a cursor made for another sort', async () => {
    const { posts } = memoryBlog();
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push((await posts.createBlogPost(post, author)).id);

    const first = await posts.listBlogPosts({ ...list, pageSize: 2 }, app);
    const second = await posts.listBlogPosts({ ...list, pageSize: 2, after: first.nextAfter }, app);
    expect([...first.posts, ...second.posts].map((found) => found.id)).toEqual([...ids].reverse());
    expect(second.nextAfter).toBe('');
    await expect(posts.listBlogPosts({ ...list, sort: { field: 'num_views', direction: 'desc' }, after: first.nextAfter }, app)).rejects.toMatchObject({
      details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }],
    });
  });
});
