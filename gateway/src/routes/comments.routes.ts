import type { GrpcClient } from '@inkwell/grpc';
import { ListCommentsRequestSchema, StoriesService } from '@inkwell/proto/stories';
import type { RelationsService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { cursorPagination, defineDocumentSpec, defineListSpec, filters, type DocumentResponder } from '../jsonapi/index.js';
import { CHAPTER_CONTENT_FIELDS, CHAPTER_SCHEMA } from '../resources/chapter.resource.js';
import { COMMENT_SCHEMA, COMMENT_WRITE, commentsOf, createdCommentOf } from '../resources/comment.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';
import { hidingRpc } from './hidden-content.js';

/** What the comment routes need: the stories client, the link builder and the document responder. */
export interface CommentsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  /** Asked whom the caller blocks, for filter[hide_blocked] (docs/api/safety.md). */
  readonly relations: GrpcClient<typeof RelationsService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

const COMMENT_TYPES = [USER_SCHEMA, STORY_SCHEMA, CHAPTER_SCHEMA];
const COMMENT_INCLUDES = ['author', 'story'];
const COMMENT_UNAVAILABLE_FIELDS = { chapter: CHAPTER_CONTENT_FIELDS };

/**
 * GET /stories/:id/comments (docs/api/stories.md, "Votes and comments"): a visible story's comments, oldest first (the
 * service's order; no sort), `filter[hide_blocked]` (docs/api/safety.md), cursor pages (docs/api/lists.md), `include` author and story.
 */
export const COMMENT_LIST = defineListSpec({
  resource: COMMENT_SCHEMA,
  types: COMMENT_TYPES,
  includes: COMMENT_INCLUDES,
  unavailableFields: COMMENT_UNAVAILABLE_FIELDS,
  filters: { hide_blocked: filters.boolean() },
  pagination: cursorPagination(ListCommentsRequestSchema.field.pageSize),
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
export function commentsRoutes({ stories, relations, links, documents }: CommentsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/stories/:id/comments',
      doc: { summary: 'The comments on a published story, oldest first.' },
      query: COMMENT_LIST,
      toRequest: ({ params, query }) => ({ storyId: params.id, hideBlocked: query.filters.hide_blocked }),
      rpc: hidingRpc(StoriesService.method.listComments, relations, { mutes: false }, (request, hidden, options) => stories.listComments({ ...request, hiddenAuthorIds: hidden.authorIds }, options)),
      toResources: commentsOf,
    }),
    route.create({
      path: '/stories/:id/comments',
      doc: { summary: 'Comment on a published story.' },
      query: COMMENT_DOCUMENT,
      body: COMMENT_WRITE,
      toRequest: ({ params, body }) => ({ storyId: params.id, content: body.attributes.content ?? '' }),
      rpc: rpcOf(stories, StoriesService.method.createComment),
      toResource: createdCommentOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/comments/:id',
      doc: { summary: 'Delete a comment (its author, or the author of the story).' },
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(stories, StoriesService.method.deleteComment),
    }),
  ];
}
