import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { AppError } from '@inkwell/errors';
import type { User } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { apiDate, resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema } from '../jsonapi/index.js';

/** The JSON:API type of users. */
export const USER_TYPE = 'user';

/** The user type (docs/api/foundation.md, "Resource types") for `include`/`fields`: `email` appears only on the caller's own record with read_user. */
export const USER_SCHEMA = defineResourceSchema({
  type: USER_TYPE,
  description: 'A user: public profile and counts; `email` only on your own record with read_user.',
  attributes: {
    name: at.string('Display name.'),
    bio: at.string('Markdown.'),
    bio_html: at.html('bio'),
    email: at.string('Only on your own record, with the read_user scope.'),
    num_followers: at.integer(undefined, { minimum: 0 }),
    num_following: at.integer(undefined, { minimum: 0 }),
    num_stories: at.integer('Published stories.', { minimum: 0 }),
    num_blog_posts: at.integer('User (not site) blog posts.', { minimum: 0 }),
    date_joined: at.dateTime(undefined, { nullable: true }),
  },
});

/**
 * Maps a users.v1 User to its JSON:API resource (docs/api/foundation.md, "Resource types"): snake_case attributes, `email`
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

/** The user of a single-user response (get, update); a response without one is 404. */
export function userOf({ user }: { readonly user?: User }, links: ApiLinks): ResourceObject {
  if (user === undefined) throw AppError.notFound('user');
  return toUserResource(user, links);
}

/** A protobuf Timestamp as an API date; an unset Timestamp (or the epoch) is null. */
export function timestampToApiDate(timestamp: Timestamp | undefined): string | null {
  return timestamp === undefined ? null : apiDate(timestampDate(timestamp));
}
