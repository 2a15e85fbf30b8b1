import { AppError } from '@inkwell/errors';
import { CommentSchema, type Comment } from '@inkwell/proto/stories';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, writeValues } from '../jsonapi/index.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of comments. */
export const COMMENT_TYPE = 'comment';

/**
 * The comment type (docs/api/stories.md, "Ratings and comments"): `content` is written on create, `content_html` and
 * `date_posted` are the server's; `author` and `story` are set by the server (the caller and
 * the URL's story). Nothing is opt-in: a comment list is read for its text.
 */
export const COMMENT_SCHEMA = defineResourceSchema({
  type: COMMENT_TYPE,
  description: 'A comment on a published story.',
  attributes: { content: at.string('Markdown.'), content_html: at.html('content'), date_posted: at.dateTime(undefined, { nullable: true }) },
  relationships: { author: { type: 'user', many: false }, story: { type: 'story', many: false } },
});

/** What POST /stories/:id/comments accepts: `content`, required, non-empty after trimming, at most 1 MiB (docs/api/stories.md, "Ratings and comments"). */
export const COMMENT_WRITE = defineWriteSpec({
  resource: COMMENT_SCHEMA,
  attributes: { content: writeValues.string() },
  required: ['content'],
});

const COMMENT_FIELDS = protoResourceMapper(CommentSchema, COMMENT_SCHEMA);

/**
 * Maps a stories.v1 Comment to its JSON:API resource: `date_posted` in ISO 8601 UTC, linkage to
 * the author and the story. No `links.self`: comments have no GET-by-id endpoint (docs/api/foundation.md, "Documents").
 */
export function toCommentResource(comment: Comment): ResourceObject {
  return resourceObject(COMMENT_TYPE, comment.id, COMMENT_FIELDS.attributes(comment), { relationships: COMMENT_FIELDS.relationships(comment) });
}

/** The comment of a create response; a response without one means the story is not there (404). */
export function createdCommentOf({ comment }: { readonly comment?: Comment }): ResourceObject {
  if (comment === undefined) throw AppError.notFound('story');
  return toCommentResource(comment);
}

/** The comments of a list response. */
export function commentsOf({ comments }: { readonly comments: readonly Comment[] }): ResourceObject[] {
  return comments.map(toCommentResource);
}
