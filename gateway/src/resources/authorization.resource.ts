import { AuthorizationSchema, ListAuthorizationsRequestSchema, type Authorization } from '@inkwell/proto/users';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, cursorPagination, defineListSpec, defineResourceSchema } from '../jsonapi/index.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of the apps a user authorized. */
export const AUTHORIZATION_TYPE = 'authorization';

/**
 * The authorization type (docs/api/accounts.md, "Authorized apps"): an app the user authorized
 * and has not revoked; its id is the app's OAuth client id.
 */
export const AUTHORIZATION_SCHEMA = defineResourceSchema({
  type: AUTHORIZATION_TYPE,
  description: 'An app you authorized (its id is the app\'s client_id): what it may do now, since when, and when it last obtained a token.',
  attributes: {
    app_name: at.string('The app\'s name, as its owner registered it.'),
    scopes: at.strings('The scopes the app holds now: those of its active tokens for you, in the order of the scope list.'),
    date_granted: at.dateTime('When you first authorized it (the earliest of its active authorizations).'),
    date_last_used: at.dateTime('When the app last obtained a token for you (code exchange or refresh).'),
  },
});

/** GET /users/me/authorizations: oldest grant first, cursor pages (docs/api/lists.md), no filters, sorts or includes. */
export const AUTHORIZATION_LIST = defineListSpec({
  resource: AUTHORIZATION_SCHEMA,
  filters: {},
  pagination: cursorPagination(ListAuthorizationsRequestSchema.field.pageSize),
});

const AUTHORIZATION_FIELDS = protoResourceMapper(AuthorizationSchema, AUTHORIZATION_SCHEMA);

/** Maps a users.v1 Authorization to its JSON:API resource; there is no GET-by-id, so no `links.self`. */
export function toAuthorizationResource(authorization: Authorization): ResourceObject {
  return resourceObject(AUTHORIZATION_TYPE, authorization.clientId, AUTHORIZATION_FIELDS.attributes(authorization));
}

/** The authorizations of a list response. */
export function authorizationsOf({ authorizations }: { readonly authorizations: readonly Authorization[] }): ResourceObject[] {
  return authorizations.map(toAuthorizationResource);
}
