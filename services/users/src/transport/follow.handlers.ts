import type { ServiceImpl } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import type { FollowService } from '../services/follow.service.js';
import { fromProtoFollowDirection, toProtoFollow } from './user.mappers.js';

type FollowHandlers = Pick<ServiceImpl<typeof UsersService>, 'followUser' | 'unfollowUser' | 'listFollows'>;

/** gRPC handlers of the follow RPCs: decode → one service call → encode; no rules. */
export function followHandlers(follows: FollowService): FollowHandlers {
  return {
    async followUser(request, ctx) {
      return { follow: toProtoFollow(await follows.follow(ctx.caller, request.followerId, request.followedId)) };
    },
    async unfollowUser(request, ctx) {
      return { follow: toProtoFollow(await follows.unfollow(ctx.caller, request.followerId, request.followedId)) };
    },
    async listFollows(request) {
      const page = await follows.list(request.userId, fromProtoFollowDirection(request.direction), request.pageSize, request.after);
      return { follows: page.follows.map(toProtoFollow), nextAfter: page.nextAfter ?? '' };
    },
  };
}
