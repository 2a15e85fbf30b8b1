import type { GrpcClient } from '@inkwell/grpc';
import { StoriesService } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { DocumentResponder } from '../jsonapi/index.js';
import { TAG_LIST, tagListRequest, tagsOf } from '../resources/tag.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the tag routes need: the stories client, the link builder and the document responder. */
export interface TagsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/** The tag endpoints (paths relative to /api/v1): readable with any valid token. */
export function tagsRoutes({ stories, links, documents }: TagsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/tags',
      doc: { summary: 'Story tags (characters and genres).' },
      query: TAG_LIST,
      toRequest: ({ query }) => tagListRequest(query),
      rpc: rpcOf(stories, StoriesService.method.listTags),
      toResources: tagsOf,
    }),
  ];
}
