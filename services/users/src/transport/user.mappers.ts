import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { FollowDirection as ProtoFollowDirection, FollowSchema, UserSchema, type Follow as ProtoFollow, type User as ProtoUser } from '@inkwell/proto/users';
import type { Follow, FollowDirection } from '../domain/follow.js';
import type { VisibleUser } from '../domain/user.js';

/** Domain user → proto User; `email` stays unset when the caller may not see it. */
export function toProtoUser(user: VisibleUser): ProtoUser {
  return create(UserSchema, {
    id: user.id,
    name: user.name,
    bio: user.bio,
    bioHtml: user.bioHtml,
    ...(user.email === undefined ? {} : { email: user.email }),
    numFollowers: user.numFollowers,
    numFollowing: user.numFollowing,
    numStories: user.numStories,
    numBlogPosts: user.numBlogPosts,
    dateJoined: timestampFromDate(user.dateJoined),
  });
}

/** Domain follow → proto Follow. */
export function toProtoFollow(follow: Follow): ProtoFollow {
  return create(FollowSchema, {
    id: follow.id,
    followerId: follow.followerId,
    followedId: follow.followedId,
    dateFollowed: timestampFromDate(follow.dateFollowed),
  });
}

/** proto FollowDirection → domain (ListFollowsRequest's rule admits only FOLLOWING and FOLLOWERS). */
export function fromProtoFollowDirection(direction: ProtoFollowDirection): FollowDirection {
  return direction === ProtoFollowDirection.FOLLOWERS ? 'followers' : 'following';
}

/** A Timestamp that may be unset → Date or undefined. */
export function optionalDate(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

/** A Timestamp the request must carry → Date; an unset one becomes an invalid Date, which the service rejects. */
export function requiredDate(timestamp: Timestamp | undefined): Date {
  return timestamp === undefined ? new Date(Number.NaN) : timestampDate(timestamp);
}

/** The empty string of an unset proto3 string field → undefined. */
export function nonEmpty(value: string): string | undefined {
  return value === '' ? undefined : value;
}
