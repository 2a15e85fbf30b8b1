import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ContentRating, CreateStoryRequestSchema, StorySchema, StoryStatus, TagIdListSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { maxItems, parseCreateBody, parseListQuery, protoPattern } from '../jsonapi/index.js';
import { STORY_LIST, STORY_WRITE, storyListRequest, storyStatusToProto, toStoryResource } from './story.resource.js';

const links = createApiLinks('https://api.inkwell.example');

describe('toStoryResource', () => {
  it('maps every field, with linkage to author, chapters and tags and its canonical link', () => {
    const story = create(StorySchema, {
      id: '7',
      authorId: '3',
      title: 'Dune',
      shortDescription: 'Sand.',
      description: '**Spice**',
      descriptionHtml: '<p><strong>Spice</strong></p>',
      status: StoryStatus.ON_HIATUS,
      contentRating: ContentRating.TEEN,
      published: true,
      numWords: 1200,
      numChapters: 2,
      numViews: 10,
      numLikes: 4,
      numDislikes: 1,
      numComments: 2,
      rating: 38,
      hotness: 1.5,
      datePublished: timestampFromDate(new Date('2026-01-02T03:04:05Z')),
      dateModified: timestampFromDate(new Date('2026-01-03T00:00:00.5Z')),
      tagIds: ['c:1', 'g:2'],
      chapterIds: ['11', '12'],
    });
    expect(toStoryResource(story, links)).toEqual({
      id: '7',
      type: 'story',
      attributes: {
        title: 'Dune',
        short_description: 'Sand.',
        description: '**Spice**',
        description_html: '<p><strong>Spice</strong></p>',
        status: 'on-hiatus',
        content_rating: 'teen',
        published: true,
        num_words: 1200,
        num_chapters: 2,
        num_views: 10,
        num_likes: 4,
        num_dislikes: 1,
        num_comments: 2,
        rating: 38,
        hotness: 1.5,
        date_published: '2026-01-02T03:04:05Z',
        date_modified: '2026-01-03T00:00:00.500Z',
        date_updated: null,
      },
      relationships: {
        author: { data: { type: 'user', id: '3' } },
        chapters: { data: [{ type: 'chapter', id: '11' }, { type: 'chapter', id: '12' }] },
        tags: { data: [{ type: 'tag', id: 'c:1' }, { type: 'tag', id: 'g:2' }] },
      },
      links: {
        self: 'https://api.inkwell.example/api/v1/stories/7',
        download_epub: 'https://api.inkwell.example/api/v1/stories/7/download.epub',
        download_html: 'https://api.inkwell.example/api/v1/stories/7/download.html',
        download_txt: 'https://api.inkwell.example/api/v1/stories/7/download.txt',
      },
    });
  });

  it('sends a story without votes with rating null and an unpublished one with date_published null', () => {
    const attributes = toStoryResource(create(StorySchema, { id: '1', authorId: '2' }), links).attributes;
    expect(attributes.rating).toBeNull();
    expect(attributes.date_published).toBeNull();
    expect(attributes.published).toBe(false);
  });
});

describe('STORY_WRITE', () => {
  it('accepts the writable attributes and tag linkage, and maps statuses to the proto enum', () => {
    const body = parseCreateBody(STORY_WRITE, {
      data: { type: 'story', attributes: { title: 'T', status: 'on-hiatus', content_rating: 'mature', published: false }, relationships: { tags: { data: [{ type: 'tag', id: 'g:3' }] } } },
    });
    expect(body.attributes.status).toBe('on-hiatus');
    expect(storyStatusToProto(body.attributes.status!)).toBe(StoryStatus.ON_HIATUS);
    expect(body.relationships.tags).toEqual(['g:3']);
  });

  it('rejects a tags attribute (tags are a relationship) and read-only counts', () => {
    expect(() => parseCreateBody(STORY_WRITE, { data: { type: 'story', attributes: { title: 'T', tags: ['g:3'], rating: 90 } } })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ pointer: '/data/attributes/tags' }), expect.objectContaining({ pointer: '/data/attributes/rating' })] }),
    );
  });
});

describe('STORY_WRITE', () => {
  it('serves create and update alike: the tags of both requests have the same rules', () => {
    expect(maxItems(TagIdListSchema.field.ids)).toBe(maxItems(CreateStoryRequestSchema.field.tagIds));
    expect(protoPattern(TagIdListSchema.field.ids, 'items')).toEqual(protoPattern(CreateStoryRequestSchema.field.tagIds, 'items'));
  });
});

describe('storyListRequest', () => {
  it('sends required and excluded tags apart and the ratings as proto values', () => {
    const query = parseListQuery(STORY_LIST, new URLSearchParams({ 'filter[tags]': '-g:3,c:12,-c:1', 'filter[content_rating]': 'mature,everyone' }));
    expect(storyListRequest(query).filter).toMatchObject({ tagIds: ['c:12'], excludedTagIds: ['c:1', 'g:3'], contentRatings: [ContentRating.EVERYONE, ContentRating.MATURE] });
    expect(storyListRequest(parseListQuery(STORY_LIST, new URLSearchParams())).filter).toMatchObject({ tagIds: [], excludedTagIds: [], contentRatings: [] });
  });
});
