import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { UserSchema, type User as ProtoUser } from '@inkwell/proto/users';
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
