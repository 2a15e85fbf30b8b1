import type { GrpcClient } from '@inkwell/grpc';
import { StoriesService } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { DocumentResponder } from '../jsonapi/index.js';
import { RATING_WRITE, ratingRequest } from '../resources/rating.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the rating routes need: the stories client (and, as every route file, the link builder and document responder). */
export interface RatingsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * PUT and DELETE /stories/:id/rating (docs/api/stories.md, "Ratings and comments"): the signed-in user's one vote on a story,
 * with write_ratings. Both answer 204: a vote has no representation of its own, and the
 * story's counts and rating follow from events a moment later, so an immediate story document
 * would show the old numbers (docs/api/stories.md). Voting on one's own story is 403, on
 * another user's draft 404 (the service's rules); withdrawing without a vote changes nothing.
 */
export function ratingsRoutes({ stories, links, documents }: RatingsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.command({
      method: 'PUT',
      path: '/stories/:id/rating',
      doc: { summary: 'Like or dislike a story (one vote per user; a new vote replaces the old).' },
      body: RATING_WRITE,
      toRequest: ({ params, body }) => ratingRequest(params.id, body),
      rpc: rpcOf(stories, StoriesService.method.setStoryRating),
    }),
    route.command({
      method: 'DELETE',
      path: '/stories/:id/rating',
      doc: { summary: 'Withdraw your vote on a story.' },
      toRequest: ({ params }) => ({ storyId: params.id }),
      rpc: rpcOf(stories, StoriesService.method.deleteStoryRating),
    }),
  ];
}
