import type { GrpcClient } from '@inkwell/grpc';
import { SortDirection, TagKind, TagSortField, type StoriesService } from '@inkwell/proto/stories';
import { defineListSpec, filters, parseListQuery, type DocumentResponder } from '../lists/index.js';
import { TAG_KINDS, TAG_SCHEMA, tagKindToProto, toTagResource } from '../resources/tag.resource.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

/** What the tag routes need: the stories client and the document responder. */
export interface TagsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly documents: DocumentResponder;
}

const TAG_SORT_FIELDS = { name: TagSortField.NAME, num_stories: TagSortField.NUM_STORIES } as const;

/**
 * GET /tags (docs/api/stories.md, "Tags"): the character and genre catalogue, `filter[kind]`, sort `name` or
 * `num_stories` in either direction (default: catalogue order, kind then number), cursor pages
 * of 20 (max 100).
 */
export const TAG_LIST = defineListSpec({
  resource: TAG_SCHEMA,
  filters: { kind: filters.enumeration(TAG_KINDS) },
  sort: { fields: ['name', 'num_stories'] },
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/** The tag endpoints (paths relative to /api/v1): readable with any valid token. */
export function tagsRoutes({ stories, documents }: TagsRoutesDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/tags',
      doc: { summary: 'Story tags (characters and genres).', query: TAG_LIST },
      async handler(request) {
        const query = parseListQuery(TAG_LIST, request.query);
        const position = await documents.cursorStart(request, query);
        const sort = query.sort;
        const response = await stories.listTags(
          {
            kind: query.filters.kind === undefined ? TagKind.UNSPECIFIED : tagKindToProto(query.filters.kind),
            sort: sort === undefined ? {} : { field: TAG_SORT_FIELDS[sort.field], direction: sort.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING },
            pageSize: query.page.size,
            after: position.after,
          },
          { caller: request.caller },
        );
        return documents.cursorPage(request, query, position, response.tags.map(toTagResource), response.nextAfter);
      },
    }),
  ];
}
