import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { Chapter, StoriesService } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineDocumentSpec, defineListSpec, parseCreateBody, parseDocumentQuery, parseListQuery, parseUpdateBody, wantsField, type DocumentResponder, type SparseFieldsets } from '../lists/index.js';
import { CHAPTER_SCHEMA, CHAPTER_WRITE, toChapterResource } from '../resources/chapter.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

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
 * sort, no filters), cursor pages of 20 (max 100). `content`/`content_html` only when named in
 * `fields[chapter]`; then a page ends early at the text budget and counts views
 * (docs/api/stories.md, "Chapter lists with content").
 */
export const CHAPTER_LIST = defineListSpec({
  resource: CHAPTER_SCHEMA,
  types: CHAPTER_TYPES,
  includes: CHAPTER_INCLUDES,
  filters: {},
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/**
 * GET /chapters/:id and the responses of chapter writes: `include` story, story.author and
 * `fields`; `content`/`content_html` only when named in `fields[chapter]` (docs/api/lists.md, "Sparse fieldsets").
 */
export const CHAPTER_DOCUMENT = defineDocumentSpec({ resource: CHAPTER_SCHEMA, types: CHAPTER_TYPES, includes: CHAPTER_INCLUDES });

/** Whether `fields[chapter]` asks for the (heavy, opt-in) content. */
function wantsContent(fields: SparseFieldsets): boolean {
  return wantsField(fields, CHAPTER_SCHEMA, 'content') || wantsField(fields, CHAPTER_SCHEMA, 'content_html');
}

/**
 * The chapter endpoints (paths relative to /api/v1). Reads need a valid token (draft chapters
 * and chapters of drafts need authorship and read_stories: the service's rule); reading the
 * content of a published chapter counts a view (docs/api/stories.md, "Counts, rating and hotness"). Writes act as the signed-in user
 * with write_stories.
 */
export function chaptersRoutes({ stories, links, documents }: ChaptersRoutesDeps): RouteDefinition[] {
  const toResource = (chapter: Chapter | undefined) => {
    if (chapter === undefined) throw AppError.notFound('chapter');
    return toChapterResource(chapter, links);
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/stories/:id/chapters',
      doc: {
        summary: 'The chapters of a story, in order; with their text when fields[chapter] names content or content_html.',
        description: 'With content, a page ends early after the chapter that brings its text (content plus content_html) to 16 MiB; follow `links.next` for the rest. Reading content counts views as GET /chapters/:id does.',
        query: CHAPTER_LIST,
        errors: ['insufficient_scope'],
      },
      async handler(request) {
        const query = parseListQuery(CHAPTER_LIST, request.query);
        const position = await documents.cursorStart(request, query);
        const includeContent = wantsContent(query.fields);
        const response = await stories.listChapters({ storyId: request.params.id, pageSize: query.page.size, after: position.after, includeContent }, { caller: request.caller });
        return documents.cursorPage(request, query, position, response.chapters.map((chapter) => toChapterResource(chapter, links)), response.nextAfter);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/stories/:id/chapters',
      doc: { summary: 'Add a chapter to a story of yours.', query: CHAPTER_DOCUMENT, body: CHAPTER_WRITE },
      scope: 'write_stories',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(CHAPTER_DOCUMENT, request.query);
        const { attributes } = parseCreateBody(CHAPTER_WRITE, request.body);
        const { chapter } = await stories.createChapter(
          {
            storyId: request.params.id,
            title: attributes.title ?? '',
            content: attributes.content ?? '',
            authorsNote: attributes.authors_note ?? '',
            published: attributes.published ?? false,
          },
          { caller: request.caller },
        );
        const resource = toResource(chapter);
        const self = links.to(`/chapters/${resource.id}`);
        return documents.resource(request, query, resource, { status: 201, headers: { Location: self }, self });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/chapters/:id',
      doc: { summary: 'One chapter; its content only when named in fields[chapter] (counts a view).', query: CHAPTER_DOCUMENT, errors: ['insufficient_scope'] },
      async handler(request) {
        const query = parseDocumentQuery(CHAPTER_DOCUMENT, request.query);
        const { chapter } = await stories.getChapter({ id: request.params.id, includeContent: wantsContent(query.fields) }, { caller: request.caller });
        return documents.resource(request, query, toResource(chapter));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/chapters/:id',
      doc: { summary: 'Change a chapter of yours.', query: CHAPTER_DOCUMENT, body: CHAPTER_WRITE },
      scope: 'write_stories',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(CHAPTER_DOCUMENT, request.query);
        const { attributes } = parseUpdateBody(CHAPTER_WRITE, request.body, request.params.id);
        const { chapter } = await stories.updateChapter(
          { id: request.params.id, title: attributes.title, content: attributes.content, authorsNote: attributes.authors_note, published: attributes.published },
          { caller: request.caller },
        );
        return documents.resource(request, query, toResource(chapter));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/chapters/:id',
      doc: { summary: 'Delete a chapter of yours (not the last published one of a published story).', errors: ['validation_failed'] },
      scope: 'write_stories',
      requiresUser: true,
      async handler(request) {
        parseDocumentQuery(CHAPTER_DOCUMENT, request.query);
        await stories.deleteChapter({ id: request.params.id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
  ];
}
