import { AppError } from '@inkwell/errors';
import { UserSchema, type User } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema } from '../jsonapi/index.js';
import { protoResourceMapper } from './proto-resource.js';

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

const USER_FIELDS = protoResourceMapper(UserSchema, USER_SCHEMA);

/**
 * Maps a users.v1 User to its JSON:API resource (docs/api/foundation.md, "Resource types"): snake_case attributes, `email`
 * only when the service set it (the caller's own record with read_user), `date_joined` in
 * ISO 8601 UTC or null, `links.self` = PUBLIC_BASE_URL/api/v1/users/<id>. Users have no
 * relationships.
 */
export function toUserResource(user: User, links: ApiLinks): ResourceObject {
  return resourceObject(USER_TYPE, user.id, USER_FIELDS.attributes(user), { self: links.to(`/users/${user.id}`) });
}

/** The user of a single-user response (get, update); a response without one is 404. */
export function userOf({ user }: { readonly user?: User }, links: ApiLinks): ResourceObject {
  if (user === undefined) throw AppError.notFound('user');
  return toUserResource(user, links);
}
