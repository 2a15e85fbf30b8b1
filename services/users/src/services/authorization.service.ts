import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import { AppError, ErrorCode } from '@inkwell/errors';
import { decodeAuthorizationPosition, DEFAULT_AUTHORIZATION_PAGE_SIZE, encodeAuthorizationPosition, isClientId, type Authorization } from '../domain/authorization.js';
import { isUserId, type Viewer } from '../domain/user.js';
import type { AuthorizationRepository } from '../repositories/authorization.repository.js';
import type { RevocationNotifier } from '../repositories/revocation.notifier.js';
import { callerUserId } from './caller-user.guard.js';

/** What the authorization rules read and write: AuthorizationRepository, or a memory store in unit tests. */
export type AuthorizationStore = Pick<AuthorizationRepository, 'list' | 'revoke'>;

/** One page of authorizations; `nextAfter` is absent on the last page. */
export interface AuthorizationList {
  authorizations: Authorization[];
  nextAfter?: string;
}

/**
 * The apps a user authorized (docs/api/accounts.md, "Authorized apps"): listing them and
 * revoking one, always for the caller's own user. That only the user themself may call (a
 * personal token or a signed-in page, never an app) is the RPCs' `first_party` access option,
 * checked before these run; a caller without a user is PERMISSION_DENIED (`forbidden`) here too.
 */
export class AuthorizationService {
  constructor(
    private readonly authorizations: AuthorizationStore,
    private readonly notifier: RevocationNotifier,
  ) {}

  /**
   * One page of the caller's active authorizations, oldest grant first; `pathUserId` must be the
   * caller (NOT_FOUND otherwise). `pageSize` 0 means the
   * default (20); its bound is ListAuthorizationsRequest's rule. `after` is the `nextAfter` of the
   * previous page; anything else is `invalid_cursor`.
   */
  async list(caller: Viewer, pathUserId: string, pageSize: number, after: string): Promise<AuthorizationList> {
    const userId = ownUser(caller, pathUserId);
    const position = after === '' ? undefined : decodeAuthorizationPosition(after);
    if (after !== '' && position === undefined) throw AppError.badParameter('page[cursor]', 'This cursor is not valid.', 'invalid_cursor');
    if (!isUserId(userId)) return { authorizations: [] };
    const page = await this.authorizations.list(userId, pageSize === 0 ? DEFAULT_AUTHORIZATION_PAGE_SIZE : pageSize, position);
    return {
      authorizations: page.authorizations.map(inScopeOrder),
      ...(page.next === undefined ? {} : { nextAfter: encodeAuthorizationPosition(page.next) }),
    };
  }

  /**
   * Revokes the caller's authorization of app `clientId`: every access and refresh token of it
   * stops at once (refresh tokens in the store; access tokens also at every gateway, by the
   * revocation notice published once the transaction has committed). NOT_FOUND when the caller
   * has no active authorization of that app, whether or not the app exists, or `pathUserId` is
   * not the caller.
   */
  async revoke(caller: Viewer, pathUserId: string, clientId: string): Promise<Authorization> {
    const userId = ownUser(caller, pathUserId);
    const revoked = isUserId(userId) && isClientId(clientId) ? await this.authorizations.revoke(userId, clientId) : undefined;
    if (revoked === undefined) {
      const detail = 'You have not authorized this app, or its authorization was already revoked.';
      throw new AppError(ErrorCode.NOT_FOUND, detail, { details: [{ reason: 'not_found', detail }] });
    }
    await this.notifier.notify(revoked.accessTokenHashes);
    return inScopeOrder(revoked.authorization);
  }
}

/**
 * The caller's user, when `pathUserId` (the user the path names) is the caller: anyone else's
 * authorizations are answered as if there were none (NOT_FOUND), and the caller's are the only
 * ones ever read. A caller without a user is PERMISSION_DENIED.
 */
function ownUser(caller: Viewer, pathUserId: string): string {
  const userId = callerUserId(caller, 'Authorized apps belong to a signed-in user.');
  if (pathUserId !== userId) {
    const detail = 'Only your own authorized apps can be listed or revoked.';
    throw new AppError(ErrorCode.NOT_FOUND, detail, { details: [{ reason: 'not_found', detail }] });
  }
  return userId;
}

/** The authorization with its scopes in the order of the scope list (SCOPES), not the store's. */
function inScopeOrder(authorization: Authorization): Authorization {
  const order = (scope: string) => {
    const index = (SCOPE_NAMES as readonly string[]).indexOf(scope);
    return index === -1 ? SCOPE_NAMES.length : index;
  };
  return { ...authorization, scopes: [...authorization.scopes].sort((a, b) => order(a) - order(b) || a.localeCompare(b)) };
}
