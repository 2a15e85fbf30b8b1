import type { GrpcClient } from '@inkwell/grpc';
import { ListReadingProgressRequestSchema, StoriesService } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { cursorPagination, defineListSpec, type DocumentResponder } from '../jsonapi/index.js';
import { CHAPTER_SCHEMA } from '../resources/chapter.resource.js';
import { READING_PROGRESS_SCHEMA, readingProgressOf } from '../resources/reading-progress.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the reading routes need: the stories client (the owner of chapters and of reading progress), the link builder and the document responder. */
export interface ReadingRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * GET /users/:id/reading (docs/api/stories.md, "Reading progress"): the caller's started stories,
 * the most recent activity first (no sort, no filters), cursor pages (docs/api/lists.md),
 * `include` story, story.author, last_chapter_read, next_chapter.
 */
export const READING_LIST = defineListSpec({
  resource: READING_PROGRESS_SCHEMA,
  types: [STORY_SCHEMA, CHAPTER_SCHEMA, USER_SCHEMA],
  includes: ['story', 'story.author', 'last_chapter_read', 'next_chapter'],
  unavailableFields: { chapter: { fields: ['content', 'content_html'], why: "a chapter's content is returned by GET /chapters/:id and GET /stories/:id/chapters only." } },
  filters: {},
  pagination: cursorPagination(ListReadingProgressRequestSchema.field.pageSize),
});

/**
 * Reading progress (paths relative to /api/v1; docs/api/stories.md, "Reading progress"), served by
 * the stories service: marking a chapter read or unread needs the signed-in user with
 * write_bookshelves, the reading list read_bookshelves (the RPCs' access options). Which chapters
 * may be marked, and that the list is the caller's own (another user id is `404`), are the
 * service's rules.
 */
export function readingRoutes({ stories, links, documents }: ReadingRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.command({
      method: 'PUT',
      path: '/chapters/:id/read',
      doc: { summary: 'Mark a chapter read (a published chapter of a published story).', errors: ['validation_failed'] },
      toRequest: ({ params }) => ({ chapterId: params.id }),
      rpc: rpcOf(stories, StoriesService.method.markChapterRead),
    }),
    route.command({
      method: 'DELETE',
      path: '/chapters/:id/read',
      doc: { summary: 'Mark a chapter unread again (nothing changes when it was not marked).' },
      toRequest: ({ params }) => ({ chapterId: params.id }),
      rpc: rpcOf(stories, StoriesService.method.markChapterUnread),
    }),
    route.list({
      path: '/users/:id/reading',
      doc: { summary: 'Your started stories, the most recent reading first, with how far you have read each.' },
      params: { id: 'user' },
      query: READING_LIST,
      toRequest: ({ params }) => ({ userId: params.id }),
      rpc: rpcOf(stories, StoriesService.method.listReadingProgress),
      toResources: readingProgressOf,
    }),
  ];
}
