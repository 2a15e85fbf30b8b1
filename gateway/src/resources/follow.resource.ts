import { FollowSchema, type Follow } from '@inkwell/proto/users';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema } from '../jsonapi/index.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of follows. */
export const FOLLOW_TYPE = 'follow';

/** The follow type (docs/api/foundation.md, "Resource types"): `date_followed`, and the follower and followed users. */
export const FOLLOW_SCHEMA = defineResourceSchema({
  type: FOLLOW_TYPE,
  description: 'That `follower` follows `followed`.',
  attributes: { date_followed: at.dateTime(undefined, { nullable: true }) },
  relationships: { follower: { type: 'user', many: false }, followed: { type: 'user', many: false } },
});

const FOLLOW_FIELDS = protoResourceMapper(FollowSchema, FOLLOW_SCHEMA);

/**
 * Maps a users.v1 Follow to its JSON:API resource: `date_followed` in ISO 8601 UTC, `follower`
 * and `followed` as user linkage. Follows have no GET-by-id endpoint, so no `links.self`
 * (docs/api/foundation.md, "Documents").
 */
export function toFollowResource(follow: Follow): ResourceObject {
  return resourceObject(FOLLOW_TYPE, follow.id, FOLLOW_FIELDS.attributes(follow), { relationships: FOLLOW_FIELDS.relationships(follow) });
}

/** The follow of a follow response, or null when it already existed (the 201's data is then null). */
export function followOf({ follow }: { readonly follow?: Follow }): ResourceObject | null {
  return follow === undefined ? null : toFollowResource(follow);
}

/** The follows of a list response. */
export function followsOf({ follows }: { readonly follows: readonly Follow[] }): ResourceObject[] {
  return follows.map(toFollowResource);
}
