import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { HOSTILE_MARKDOWN, MARKDOWN_REFUSAL_DETAIL, whileHostileMarkdownRenders } from '@inkwell/testing';
import { startBlogHarness, user, type BlogHarness } from './harness.js';

describe('BlogService over gRPC: post content that cannot be rendered within bounds (docs/api/foundation.md, "Markdown")', () => {
  let h: BlogHarness;

  beforeAll(async () => {
    h = await startBlogHarness('inkwell_test_blog_markdown');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('refuses it at /data/attributes/content, stores nothing, and posts another author’s post meanwhile', async () => {
    const { error, result, order } = await whileHostileMarkdownRenders(
      () => h.client.createBlogPost({ title: 'Hostile', content: HOSTILE_MARKDOWN }, user('801')),
      () => h.client.createBlogPost({ title: 'Ordinary', content: 'An *ordinary* post.' }, user('802')),
    );
    expect(error).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/content', detail: expect.stringMatching(MARKDOWN_REFUSAL_DETAIL) }],
    });
    expect(result.blogPost?.contentHtml).toBe('<p>An <em>ordinary</em> post.</p>');
    expect(order).toEqual(['ordinary', 'hostile']);
    const { rows } = await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM blog_posts WHERE title = $1', ['Hostile']);
    expect(rows[0]?.n).toBe(0);
  });

  it('refuses it on update too, keeping the post as it was', async () => {
    const { blogPost } = await h.client.createBlogPost({ title: 'Kept', content: 'kept' }, user('803'));
    await expect(h.client.updateBlogPost({ id: blogPost!.id, content: HOSTILE_MARKDOWN }, user('803'))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/content' }],
    });
    const { blogPost: after } = await h.client.getBlogPost({ id: blogPost!.id, includeContent: true }, user('803'));
    expect(after?.contentHtml).toBe('<p>kept</p>');
  });
});
