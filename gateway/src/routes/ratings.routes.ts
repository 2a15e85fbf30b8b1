import type { GrpcClient } from '@inkwell/grpc';
import { RatingValue, type StoriesService } from '@inkwell/proto/stories';
import { parseCreateBody } from '../lists/index.js';
import { RATING_WRITE, ratingValueToProto } from '../resources/rating.resource.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

/** What the rating routes need: the stories client. */
export interface RatingsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
}

/**
 * PUT and DELETE /stories/:id/rating (docs/api/stories.md, "Ratings and comments"): the signed-in user's one vote on a story,
 * with write_ratings. Both answer 204: a vote has no representation of its own, and the
 * story's counts and rating follow from events a moment later, so an immediate story document
 * would show the old numbers (docs/api/stories.md). Voting on one's own story is 403, on
 * another user's draft 404 (the service's rules); withdrawing without a vote changes nothing.
 */
export function ratingsRoutes({ stories }: RatingsRoutesDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'PUT',
      path: '/stories/:id/rating',
      doc: { summary: 'Like or dislike a story (one vote per user; a new vote replaces the old).', body: RATING_WRITE },
      scope: 'write_ratings',
      requiresUser: true,
      async handler(request) {
        const { attributes } = parseCreateBody(RATING_WRITE, request.body);
        const value = attributes.value === undefined ? RatingValue.UNSPECIFIED : ratingValueToProto(attributes.value);
        await stories.setStoryRating({ storyId: request.params.id, value }, { caller: request.caller });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/stories/:id/rating',
      doc: { summary: 'Withdraw your vote on a story.' },
      scope: 'write_ratings',
      requiresUser: true,
      async handler(request) {
        await stories.deleteStoryRating({ storyId: request.params.id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
  ];
}
