import type { IssuerTable } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';

/** Only the gateway, which authenticated the API caller itself. */
const GATEWAY = ['gateway'] as const;
/** Every process of the system: reads other services make for their callers (messaging, the stories demo seed). */
const ANY_SERVICE = ['gateway', 'users', 'stories', 'bookshelves', 'blog', 'messaging'] as const;

/**
 * Which issuer may call each RPC of the users service (docs/api/foundation.md, "Internal
 * calls"): everything about accounts' credentials, sign-in and sign-up, OAuth apps,
 * authorization codes, tokens and personal tokens, and every write, only the gateway; public
 * reads of users and follows, every service. A verified call from another issuer is
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
  getClient: GATEWAY,
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
};
