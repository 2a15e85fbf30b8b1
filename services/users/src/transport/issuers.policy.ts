import type { IssuerTable } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';

/** Only the gateway, which authenticated the API caller itself. */
const GATEWAY = ['gateway'] as const;
/** The webhooks service, which asks who owns an app and what its users granted it (docs/api/webhooks.md, "Design"). */
const WEBHOOKS = ['webhooks'] as const;
/** The gateway and the webhooks service: an app's owner, read for the caller who manages it. */
const GATEWAY_AND_WEBHOOKS = ['gateway', 'webhooks'] as const;
/** Every process of the system: reads other services make for their callers (messaging, the stories demo seed). */
const ANY_SERVICE = ['gateway', 'users', 'stories', 'bookshelves', 'blog', 'messaging'] as const;

/**
 * Which issuer may call each RPC of the users service (docs/api/foundation.md, "Internal
 * calls"): everything about accounts' credentials, sign-in and sign-up, OAuth apps,
 * authorization codes, tokens and personal tokens, and every write, only the gateway; public
 * reads of users and follows, every service; an app's public fields, also the webhooks service,
 * which alone reads the scopes a user grants apps. A verified call from another issuer is
 * PERMISSION_DENIED.
 */
export const USERS_ISSUERS: IssuerTable<typeof UsersService> = {
  getUser: ANY_SERVICE,
  batchGetUsers: ANY_SERVICE,
  listFollows: ANY_SERVICE,
  registerUser: GATEWAY,
  authenticate: GATEWAY,
  updateUser: GATEWAY,
  followUser: GATEWAY,
  unfollowUser: GATEWAY,
  createClient: GATEWAY,
  listClients: GATEWAY,
  getClient: GATEWAY_AND_WEBHOOKS,
  checkWebOrigin: GATEWAY,
  deleteClient: GATEWAY,
  verifyClientSecret: GATEWAY,
  saveAuthorizationCode: GATEWAY,
  getAuthorizationCode: GATEWAY,
  consumeAuthorizationCode: GATEWAY,
  saveTokens: GATEWAY,
  getAccessToken: GATEWAY,
  getRefreshToken: GATEWAY,
  revokeToken: GATEWAY,
  revokeUserTokens: GATEWAY,
  createPersonalToken: GATEWAY,
  listPersonalTokens: GATEWAY,
  revokePersonalToken: GATEWAY,
  listAuthorizations: GATEWAY,
  revokeAuthorization: GATEWAY,
  getUserAppScopes: WEBHOOKS,
};
