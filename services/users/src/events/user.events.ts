import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { EventPayloadInit } from '@inkwell/events';
import { UserCreatedSchema, UserFollowedSchema, UserUnfollowedSchema, UserUpdatedSchema } from '@inkwell/proto/users';
import type { Follow } from '../domain/follow.js';
import type { User } from '../domain/user.js';

/** The `UserCreated` outbox payload of a newly registered user (no e-mail: every service reads it). */
export function userCreated(user: User): EventPayloadInit {
  return {
    case: 'userCreated',
    value: create(UserCreatedSchema, { userId: user.id, name: user.name, dateJoined: timestampFromDate(user.dateJoined) }),
  };
}

/** The `UserUpdated` outbox payload: the public state after a profile change (no e-mail, no bio text). */
export function userUpdated(user: User): EventPayloadInit {
  return { case: 'userUpdated', value: create(UserUpdatedSchema, { userId: user.id, name: user.name }) };
}

/** The `UserFollowed` outbox payload of a new follow. */
export function userFollowed(follow: Follow): EventPayloadInit {
  return {
    case: 'userFollowed',
    value: create(UserFollowedSchema, {
      followId: follow.id,
      followerId: follow.followerId,
      followedId: follow.followedId,
      dateFollowed: timestampFromDate(follow.dateFollowed),
    }),
  };
}

/** The `UserUnfollowed` outbox payload of a removed follow. */
export function userUnfollowed(follow: Follow): EventPayloadInit {
  return { case: 'userUnfollowed', value: create(UserUnfollowedSchema, { followId: follow.id, followerId: follow.followerId, followedId: follow.followedId }) };
}
