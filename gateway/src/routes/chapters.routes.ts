import type { GrpcClient } from '@inkwell/grpc';
import { ListChaptersRequestSchema, StoriesService } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { cursorPagination, defineDocumentSpec, defineListSpec, type DocumentResponder } from '../jsonapi/index.js';
import { CHAPTER_SCHEMA, CHAPTER_WRITE, chapterCreateRequest, chapterOf, chaptersOf, chapterUpdateRequest, wantsChapterContent } from '../resources/chapter.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the chapter routes need: the stories client, the link builder and the document responder. */
export interface ChaptersRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

const CHAPTER_TYPES = [STORY_SCHEMA, USER_SCHEMA];
const CHAPTER_INCLUDES = ['story', 'story.author'];

/**
 * GET /stories/:id/chapters: the chapters of a story the caller may see, in chapter order (no
 * sort, no filters), cursor pages (docs/api/lists.md). `content`/`content_html` only when named in
 * `fields[chapter]`; then a page ends early at the text budget and counts views
 * (docs/api/stories.md, "Chapter lists with content").
 */
export const CHAPTER_LIST = defineListSpec({
  resource: CHAPTER_SCHEMA,
  types: CHAPTER_TYPES,
  includes: CHAPTER_INCLUDES,
  filters: {},
  pagination: cursorPagination(ListChaptersRequestSchema.field.pageSize),
});

/**
 * GET /chapters/:id and the responses of chapter writes: `include` story, story.author and
 * `fields`; `content`/`content_html` only when named in `fields[chapter]` (docs/api/lists.md, "Sparse fieldsets").
 */
export const CHAPTER_DOCUMENT = defineDocumentSpec({ resource: CHAPTER_SCHEMA, types: CHAPTER_TYPES, includes: CHAPTER_INCLUDES });

/**
 * The chapter endpoints (paths relative to /api/v1). Reads need a valid token (draft chapters
 * and chapters of drafts need authorship and read_stories: the service's rule); reading the
 * content of a published chapter counts a view (docs/api/stories.md, "Counts, rating and hotness"). Writes act as the signed-in user
 * with write_stories.
 */
export function chaptersRoutes({ stories, links, documents }: ChaptersRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/stories/:id/chapters',
      doc: {
        summary: 'The chapters of a story, in order; with their text when fields[chapter] names content or content_html.',
        description: 'With content, a page ends early after the chapter that brings its text (content plus content_html) to 16 MiB; follow `links.next` for the rest. Reading content counts views as GET /chapters/:id does.',
        errors: ['insufficient_scope'],
      },
      query: CHAPTER_LIST,
      toRequest: ({ params, query }) => ({ storyId: params.id, includeContent: wantsChapterContent(query.fields) }),
      rpc: rpcOf(stories, StoriesService.method.listChapters),
      toResources: chaptersOf,
    }),
    route.create({
      path: '/stories/:id/chapters',
      doc: { summary: 'Add a chapter to a story of yours.' },
      query: CHAPTER_DOCUMENT,
      body: CHAPTER_WRITE,
      toRequest: ({ params, body }) => chapterCreateRequest(params.id, body),
      rpc: rpcOf(stories, StoriesService.method.createChapter),
      toResource: chapterOf,
    }),
    route.read({
      path: '/chapters/:id',
      doc: { summary: 'One chapter; its content only when named in fields[chapter] (counts a view).', errors: ['insufficient_scope'] },
      query: CHAPTER_DOCUMENT,
      toRequest: ({ params, query }) => ({ id: params.id, includeContent: wantsChapterContent(query.fields) }),
      rpc: rpcOf(stories, StoriesService.method.getChapter),
      toResource: chapterOf,
    }),
    route.update({
      path: '/chapters/:id',
      doc: { summary: 'Change a chapter of yours.' },
      query: CHAPTER_DOCUMENT,
      body: CHAPTER_WRITE,
      toRequest: ({ params, body }) => chapterUpdateRequest(params.id, body),
      rpc: rpcOf(stories, StoriesService.method.updateChapter),
      toResource: chapterOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/chapters/:id',
      doc: { summary: 'Delete a chapter of yours (not the last published one of a published story).', errors: ['validation_failed'] },
      checkedQuery: CHAPTER_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(stories, StoriesService.method.deleteChapter),
    }),
  ];
}
