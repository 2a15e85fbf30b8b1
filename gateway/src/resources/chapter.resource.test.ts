import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChapterSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { narrowResource } from '../jsonapi/index.js';
import { CHAPTER_SCHEMA, toChapterResource } from './chapter.resource.js';

const links = createApiLinks('https://api.inkwell.example');

describe('toChapterResource', () => {
  const chapter = create(ChapterSchema, {
    id: '11',
    storyId: '7',
    title: 'One',
    content: '*Once*',
    contentHtml: '<p><em>Once</em></p>',
    authorsNote: 'n',
    authorsNoteHtml: '<p>n</p>',
    chapterNumber: 1,
    published: true,
    numWords: 1,
    numViews: 2,
    datePublished: timestampFromDate(new Date('2026-01-02T03:04:05Z')),
    dateModified: timestampFromDate(new Date('2026-01-02T03:04:05Z')),
  });

  it('maps every field with story linkage and its canonical link', () => {
    expect(toChapterResource(chapter, links)).toEqual({
      id: '11',
      type: 'chapter',
      attributes: {
        title: 'One',
        content: '*Once*',
        content_html: '<p><em>Once</em></p>',
        authors_note: 'n',
        authors_note_html: '<p>n</p>',
        chapter_number: 1,
        published: true,
        num_words: 1,
        num_views: 2,
        date_published: '2026-01-02T03:04:05Z',
        date_modified: '2026-01-02T03:04:05Z',
      },
      relationships: { story: { data: { type: 'story', id: '7' } } },
      links: { self: 'https://api.inkwell.example/api/v1/chapters/11' },
    });
  });

  it('has no content members when the service sent none, and the schema hides content unless asked', () => {
    expect(toChapterResource(create(ChapterSchema, { id: '1', storyId: '2' }), links).attributes).not.toHaveProperty('content');
    expect(narrowResource(toChapterResource(chapter, links), CHAPTER_SCHEMA, new Map()).attributes).not.toHaveProperty('content_html');
  });
});
