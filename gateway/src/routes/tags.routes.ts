import type { GrpcClient } from '@inkwell/grpc';
import type { StoriesService } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineListSpec, filters, type DocumentResponder } from '../jsonapi/index.js';
import { TAG_KINDS, TAG_SCHEMA, TAG_SORT_FIELDS, tagListRequest, tagsOf } from '../resources/tag.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the tag routes need: the stories client, the link builder and the document responder. */
export interface TagsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * GET /tags (docs/api/stories.md, "Tags"): the character and genre catalogue, `filter[kind]`, sort `name` or
 * `num_stories` in either direction (default: catalogue order, kind then number), cursor pages
 * of 20 (max 100).
 */
export const TAG_LIST = defineListSpec({
  resource: TAG_SCHEMA,
  filters: { kind: filters.enumeration(TAG_KINDS) },
  sort: { fields: TAG_SORT_FIELDS },
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/** The tag endpoints (paths relative to /api/v1): readable with any valid token. */
export function tagsRoutes({ stories, links, documents }: TagsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/tags',
      doc: { summary: 'Story tags (characters and genres).' },
      query: TAG_LIST,
      toRequest: ({ query }) => tagListRequest(query),
      rpc: (request, options) => stories.listTags(request, options),
      toResources: tagsOf,
    }),
  ];
}
