import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { User } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { apiDate, resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { defineResourceSchema } from '../lists/index.js';

/** The JSON:API type of users. */
export const USER_TYPE = 'user';

/** The user type (contract §3) for `include`/`fields`: `email` appears only on the caller's own record with read_user. */
export const USER_SCHEMA = defineResourceSchema({
  type: USER_TYPE,
  attributes: ['name', 'bio', 'bio_html', 'email', 'num_followers', 'num_following', 'num_stories', 'num_blog_posts', 'date_joined'],
});

/**
 * Maps a users.v1 User to its JSON:API resource (contract §3): snake_case attributes, `email`
 * only when the service set it (the caller's own record with read_user), `date_joined` in
 * ISO 8601 UTC or null, `links.self` = PUBLIC_BASE_URL/api/v1/users/<id>. Users have no
 * relationships.
 */
export function toUserResource(user: User, links: ApiLinks): ResourceObject {
  const attributes: Record<string, string | number | null> = {
    name: user.name,
    bio: user.bio,
    bio_html: user.bioHtml,
  };
  if (user.email !== undefined) attributes.email = user.email;
  attributes.num_followers = user.numFollowers;
  attributes.num_following = user.numFollowing;
  attributes.num_stories = user.numStories;
  attributes.num_blog_posts = user.numBlogPosts;
  attributes.date_joined = timestampToApiDate(user.dateJoined);
  return resourceObject(USER_TYPE, user.id, attributes, { self: links.to(`/users/${user.id}`) });
}

/** A protobuf Timestamp as an API date; an unset Timestamp (or the epoch) is null. */
export function timestampToApiDate(timestamp: Timestamp | undefined): string | null {
  return timestamp === undefined ? null : apiDate(timestampDate(timestamp));
}
