import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { CommentSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { parseCreateBody } from '../jsonapi/index.js';
import { COMMENT_WRITE, toCommentResource } from './comment.resource.js';

describe('toCommentResource', () => {
  it('maps the text, the date and the author and story linkage, without links (no GET-by-id endpoint)', () => {
    const comment = create(CommentSchema, {
      id: '7',
      storyId: '3',
      authorId: '9',
      content: 'Nice *one*',
      contentHtml: '<p>Nice <em>one</em></p>',
      datePosted: timestampFromDate(new Date('2026-01-02T03:04:05Z')),
    });
    expect(toCommentResource(comment)).toEqual({
      id: '7',
      type: 'comment',
      attributes: { content: 'Nice *one*', content_html: '<p>Nice <em>one</em></p>', date_posted: '2026-01-02T03:04:05Z' },
      relationships: { author: { data: { type: 'user', id: '9' } }, story: { data: { type: 'story', id: '3' } } },
    });
  });
});

describe('COMMENT_WRITE', () => {
  it('takes content and refuses missing or read-only members with pointers (blank content is the stories service’s to refuse)', () => {
    expect(parseCreateBody(COMMENT_WRITE, { data: { type: 'comment', attributes: { content: 'hi' } } }).attributes).toEqual({ content: 'hi' });
    for (const attributes of [{}, { content: 'x', date_posted: '2026-01-01T00:00:00Z' }]) {
      expect(() => parseCreateBody(COMMENT_WRITE, { data: { type: 'comment', attributes } })).toThrow(
        expect.objectContaining({ details: [expect.objectContaining({ reason: 'validation_failed', pointer: expect.stringMatching(/^\/data\/attributes\/(content|date_posted)$/) })] }),
      );
    }
  });
});
