import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { StoriesService } from '@inkwell/proto/stories';
import { defineDocumentSpec, defineListSpec, parseCreateBody, parseDocumentQuery, parseListQuery, type DocumentResponder } from '../lists/index.js';
import { CHAPTER_CONTENT_FIELDS, CHAPTER_SCHEMA } from '../resources/chapter.resource.js';
import { COMMENT_SCHEMA, COMMENT_WRITE, toCommentResource } from '../resources/comment.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

/** What the comment routes need: the stories client and the document responder. */
export interface CommentsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly documents: DocumentResponder;
}

const COMMENT_TYPES = [USER_SCHEMA, STORY_SCHEMA, CHAPTER_SCHEMA];
const COMMENT_INCLUDES = ['author', 'story'];
const COMMENT_UNAVAILABLE_FIELDS = { chapter: CHAPTER_CONTENT_FIELDS };

/**
 * GET /stories/:id/comments (docs/api/stories.md, "Votes and comments"): a visible story's comments, oldest first (the
 * service's order; no sort or filters), cursor pages of 20 (max 100), `include` author and story.
 */
export const COMMENT_LIST = defineListSpec({
  resource: COMMENT_SCHEMA,
  types: COMMENT_TYPES,
  includes: COMMENT_INCLUDES,
  unavailableFields: COMMENT_UNAVAILABLE_FIELDS,
  filters: {},
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/** The response of POST /stories/:id/comments: `include` author and story, and `fields`. */
export const COMMENT_DOCUMENT = defineDocumentSpec({ resource: COMMENT_SCHEMA, types: COMMENT_TYPES, includes: COMMENT_INCLUDES, unavailableFields: COMMENT_UNAVAILABLE_FIELDS });

/**
 * The comment endpoints (paths relative to /api/v1). Reading needs a valid token and a story
 * the caller may see; writing needs the signed-in user with write_comments. Comments only on
 * published stories (another user's draft 404, one's own draft 422) and deletion by the
 * comment's or the story's author (others 403) are the service's rules. Comments carry no
 * `links.self` and a create answers 201 without `Location`: there is no GET /comments/:id.
 */
export function commentsRoutes({ stories, documents }: CommentsRoutesDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/stories/:id/comments',
      doc: { summary: 'The comments on a published story, oldest first.', query: COMMENT_LIST },
      async handler(request) {
        const query = parseListQuery(COMMENT_LIST, request.query);
        const position = await documents.cursorStart(request, query);
        const response = await stories.listComments({ storyId: request.params.id, pageSize: query.page.size, after: position.after }, { caller: request.caller });
        return documents.cursorPage(request, query, position, response.comments.map(toCommentResource), response.nextAfter);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/stories/:id/comments',
      doc: { summary: 'Comment on a published story.', query: COMMENT_DOCUMENT, body: COMMENT_WRITE },
      scope: 'write_comments',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(COMMENT_DOCUMENT, request.query);
        const { attributes } = parseCreateBody(COMMENT_WRITE, request.body);
        const { comment } = await stories.createComment({ storyId: request.params.id, content: attributes.content ?? '' }, { caller: request.caller });
        if (comment === undefined) throw AppError.notFound('story');
        return documents.resource(request, query, toCommentResource(comment), { status: 201 });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/comments/:id',
      doc: { summary: 'Delete a comment (its author, or the author of the story).' },
      scope: 'write_comments',
      requiresUser: true,
      async handler(request) {
        await stories.deleteComment({ id: request.params.id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
  ];
}
