import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BlogPostSchema, BlogPostStoriesSchema, CreateBlogPostRequestSchema } from '@inkwell/proto/blog';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { maxItems } from '../jsonapi/index.js';
import { BLOG_POST_CREATE, BLOG_POST_UPDATE, toBlogPostResource } from './blog-post.resource.js';

const links = createApiLinks('https://api.example');
const base = {
  id: '7',
  authorId: '3',
  title: 'Hello',
  intro: 'Hi there',
  tags: ['news'],
  storyIds: ['11', '12'],
  datePosted: timestampFromDate(new Date('2026-03-01T10:00:00Z')),
  dateModified: timestampFromDate(new Date('2026-03-02T10:00:00.250Z')),
  numViews: 4,
};

describe('toBlogPostResource', () => {
  it('maps a user post with author and story linkage, without content when none was loaded', () => {
    expect(toBlogPostResource(create(BlogPostSchema, base), links)).toEqual({
      id: '7',
      type: 'blog_post',
      attributes: {
        title: 'Hello',
        intro: 'Hi there',
        tags: ['news'],
        date_posted: '2026-03-01T10:00:00Z',
        date_modified: '2026-03-02T10:00:00.250Z',
        num_views: 4,
        site_post: false,
        site_post_tag: null,
      },
      relationships: {
        author: { data: { type: 'user', id: '3' } },
        stories: { data: [{ type: 'story', id: '11' }, { type: 'story', id: '12' }] },
      },
      links: { self: 'https://api.example/api/v1/blog-posts/7' },
    });
  });

  it('carries content and content_html when loaded, and a null author on site posts', () => {
    const resource = toBlogPostResource(create(BlogPostSchema, { ...base, authorId: '0', sitePost: true, sitePostTag: 'announcement', content: '*x*', contentHtml: '<p><em>x</em></p>' }), links);
    expect(resource.attributes).toMatchObject({ content: '*x*', content_html: '<p><em>x</em></p>', site_post: true, site_post_tag: 'announcement' });
    expect(resource.relationships?.author).toEqual({ data: null });
  });
});

describe('BLOG_POST_CREATE and BLOG_POST_UPDATE', () => {
  it('take as many stories as both requests allow', () => {
    expect(maxItems(BlogPostStoriesSchema.field.storyIds)).toBe(maxItems(CreateBlogPostRequestSchema.field.storyIds));
    expect(BLOG_POST_CREATE.relationships?.stories.maxItems).toBe(maxItems(CreateBlogPostRequestSchema.field.storyIds));
    expect(BLOG_POST_UPDATE.relationships?.stories.maxItems).toBe(maxItems(BlogPostStoriesSchema.field.storyIds));
  });
});
