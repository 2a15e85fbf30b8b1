import { generateToken, hashToken, parseScopes } from '@inkwell/auth-tokens';
import { AppError } from '@inkwell/errors';
import { PERSONAL_TOKEN_LIMITS, type PersonalToken } from '../domain/oauth.js';
import { isUserId, type Viewer } from '../domain/user.js';
import type { RevocationNotifier } from '../repositories/revocation.notifier.js';
import type { TokenRepository } from '../repositories/token.repository.js';
import type { UserLookup } from '../repositories/user.repository.js';
import { callerUserId } from './caller-user.guard.js';
import { limitReached } from './limit-reached.error.js';

/** What the personal token rules read and write: TokenRepository, or a memory store in unit tests. */
export type PersonalTokenStore = Pick<TokenRepository, 'createPersonalToken' | 'listPersonalTokens' | 'revokePersonalToken'>;

/** A personal token request (for the caller's own user). */
export interface PersonalTokenRequest {
  name: string;
  scopes: readonly string[];
  /** Undefined: the token does not expire. */
  expiresAt?: Date;
}

/** A new personal token (`iwk_pat_…`, shown this once) and its metadata. */
export interface CreatedPersonalToken {
  token: string;
  personalToken: PersonalToken;
}

/**
 * The rules about personal access tokens: a user mints a token with chosen scopes for their own
 * scripts; it is shown once, resolved like any access token (GetAccessToken, `personal: true`)
 * and revocable by its owner. Every operation acts for the caller's user (the signed-in user the
 * gateway's developer page signs its calls as, or the user the operator CLI names); a caller
 * without a user is PERMISSION_DENIED (`forbidden`).
 */
export class PersonalTokenService {
  constructor(
    private readonly tokens: PersonalTokenStore,
    private readonly users: UserLookup,
    private readonly notifier: RevocationNotifier,
  ) {}

  /**
   * Mints a token. Name (1–100 characters, stored trimmed) and expiry (in the future, if any) are
   * CreatePersonalTokenRequest's rules; scopes must all be known (`validation_failed` on
   * /data/attributes/scopes otherwise; none at all is allowed: such a token reads public data and
   * resolves `me`). At most PERSONAL_TOKEN_LIMITS.maxActivePerUser
   * active tokens per user: one more is FAILED_PRECONDITION `limit_reached`.
   * NOT_FOUND for an unknown user.
   */
  async create(caller: Viewer, request: PersonalTokenRequest): Promise<CreatedPersonalToken> {
    const userId = callerUserId(caller, 'A personal access token belongs to a signed-in user.');
    const name = request.name.trim();
    const { scopes, unknown } = parseScopes(request.scopes.join(' '));
    if (unknown.length > 0) throw AppError.validation('/data/attributes/scopes', `Unknown scope: ${unknown.join(', ')}.`);
    if (!isUserId(userId) || !(await this.users.findById(userId))) throw AppError.notFound('user');
    const token = generateToken('personalToken');
    const personalToken = await this.tokens.createPersonalToken(
      {
        userId,
        name,
        scopes,
        tokenHash: hashToken(token),
        ...(request.expiresAt === undefined ? {} : { expiresAt: request.expiresAt }),
      },
      PERSONAL_TOKEN_LIMITS.maxActivePerUser,
    );
    if (personalToken === undefined) {
      const max = PERSONAL_TOKEN_LIMITS.maxActivePerUser;
      throw limitReached(`You already have ${max} active personal access tokens, the most one user can have. Revoke one you no longer use first.`);
    }
    return { token, personalToken };
  }

  /** The caller's active personal tokens (neither revoked nor expired), oldest first. */
  async list(caller: Viewer): Promise<PersonalToken[]> {
    const userId = callerUserId(caller, 'Personal access tokens belong to a signed-in user.');
    return isUserId(userId) ? this.tokens.listPersonalTokens(userId) : [];
  }

  /** Revokes the caller's token `tokenId` and tells the gateways; NOT_FOUND when it is not theirs or not active. */
  async revoke(caller: Viewer, tokenId: string): Promise<void> {
    const userId = callerUserId(caller, 'Personal access tokens belong to a signed-in user.');
    const revoked = isUserId(userId) && isUserId(tokenId) ? await this.tokens.revokePersonalToken(userId, tokenId) : undefined;
    if (!revoked || revoked.count === 0) throw AppError.notFound('personal token');
    await this.notifier.notify(revoked.accessTokenHashes);
  }
}
