import { hashToken, parseScopes } from '@inkwell/auth-tokens';
import { AppError, ErrorCode } from '@inkwell/errors';
import { CODE_CHALLENGE_METHODS, notExpired, OAUTH_TOKEN_LIMITS, type AccessTokenInfo, type AuthorizationCode, type RefreshTokenInfo } from '../domain/oauth.js';
import { isUserId, type Viewer } from '../domain/user.js';
import type { AuthorizationCodeRepository } from '../repositories/authorization-code.repository.js';
import type { OAuthClientRepository } from '../repositories/oauth-client.repository.js';
import type { RevocationNotifier } from '../repositories/revocation.notifier.js';
import type { Pruned, Revoked, TokenRepository } from '../repositories/token.repository.js';
import type { UserLookup } from '../repositories/user.repository.js';
import { callerUserId } from './caller-user.guard.js';

/** An authorization code to store, as the gateway issued it (for the caller's user). */
export interface CodeIssue {
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: Date;
}

/** Tokens to store, as the gateway issued them (for the caller's user, or none: the client's own). */
export interface TokenIssue {
  accessToken: string;
  accessExpiresAt: Date;
  refreshToken?: string;
  refreshExpiresAt?: Date;
  clientId: string;
  scopes: readonly string[];
  authorizationCodeId?: string;
  /** The refresh token being exchanged (rotation). */
  rotatedFromRefresh?: string;
}

/** What SaveTokens stored. */
export interface SavedTokens {
  accessToken: AccessTokenInfo;
  refreshToken?: RefreshTokenInfo;
}

/** What the grant rules read and write of token families: TokenRepository, or a memory store in unit tests. */
export type OAuthTokenStore = Pick<
  TokenRepository,
  'save' | 'findAccessToken' | 'findRefreshToken' | 'revokeAccessToken' | 'revokeFamily' | 'revokeFamiliesOfCode' | 'revokeFamiliesOfUser' | 'pruneInactive' | 'appScopesOfUser'
>;

/** What the grant rules read and write of authorization codes (AuthorizationCodeRepository). */
export type AuthorizationCodeStore = Pick<AuthorizationCodeRepository, 'create' | 'findByHash' | 'consume' | 'flagReuse'>;

/** RFC 6749 §5.2 invalid_grant: the code or refresh token is unknown, expired, used, revoked or someone else's. */
function invalidGrant(message: string): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, message, { details: [{ reason: 'invalid_grant' }] });
}

/** An unknown, expired or revoked access token (docs/api/auth.md, "The token check on API requests"). */
function invalidToken(): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, 'The access token is unknown, expired or revoked.', { details: [{ reason: 'invalid_token' }] });
}

function invalidRequest(message: string, reason = 'invalid_request'): AppError {
  return new AppError(ErrorCode.INVALID_ARGUMENT, message, { details: [{ reason, detail: message }] });
}

/** Known scopes, each once; INVALID_ARGUMENT `invalid_scope` naming any unknown one. */
function knownScopes(scopes: readonly string[]): string[] {
  const parsed = parseScopes(scopes.join(' '));
  if (parsed.unknown.length > 0) throw invalidRequest(`Unknown scope: ${parsed.unknown.join(', ')}.`, 'invalid_scope');
  return parsed.scopes;
}

/**
 * The OAuth 2.0 grant rules behind the gateway's authorization server: single-use authorization
 * codes whose reuse revokes what they issued (RFC 6749 §4.1.2), rotating refresh tokens whose
 * reuse revokes the whole family (OAuth 2.0 Security BCP §4.14), access token resolution, and
 * revocation (RFC 7009) announced to every gateway. Secrets are handled only as hashes.
 */
export class OAuthTokenService {
  constructor(
    private readonly tokens: OAuthTokenStore,
    private readonly codes: AuthorizationCodeStore,
    private readonly clients: Pick<OAuthClientRepository, 'findWithSecret'>,
    private readonly users: UserLookup,
    private readonly notifier: RevocationNotifier,
  ) {}

  /**
   * Stores an authorization code for `clientId` and the caller's user (the signed-in user who
   * consented; a caller without a user is PERMISSION_DENIED `forbidden`). The redirect URI must
   * be one of the client's (exact match); a public client must send a PKCE challenge; scopes must
   * be known.
   */
  async saveCode(caller: Viewer, issue: CodeIssue): Promise<AuthorizationCode> {
    const userId = callerUserId(caller, 'An authorization code is issued only for a signed-in user.');
    if (issue.code === '') throw invalidRequest('The code is empty.');
    const scopes = knownScopes(issue.scopes);
    if (issue.codeChallenge === '' ? issue.codeChallengeMethod !== '' : !(CODE_CHALLENGE_METHODS as readonly string[]).includes(issue.codeChallengeMethod)) {
      throw invalidRequest('code_challenge_method is S256 or plain, and only with a code_challenge.');
    }
    if (Number.isNaN(issue.expiresAt.getTime()) || issue.expiresAt.getTime() <= Date.now()) throw invalidRequest('expires_at must be in the future.');
    const client = (await this.clients.findWithSecret(issue.clientId))?.client;
    if (!client) throw new AppError(ErrorCode.NOT_FOUND, 'The client does not exist.', { details: [{ reason: 'invalid_client' }] });
    if (!client.redirectUris.includes(issue.redirectUri)) throw invalidRequest('The redirect URI is not registered for this client.');
    if (!client.confidential && issue.codeChallenge === '') throw invalidRequest('Public clients must use PKCE (code_challenge).');
    if (!isUserId(userId) || !(await this.users.findById(userId))) throw AppError.notFound('user');
    return this.codes.create({
      codeHash: hashToken(issue.code),
      clientId: issue.clientId,
      userId,
      redirectUri: issue.redirectUri,
      scopes,
      codeChallenge: issue.codeChallenge,
      codeChallengeMethod: issue.codeChallengeMethod,
      expiresAt: issue.expiresAt,
    });
  }

  /**
   * The code, if `clientId` may exchange it now; it stays unused. A code that was consumed
   * already is reuse: everything issued from it is revoked, and the call fails `invalid_grant`.
   */
  async getCode(code: string, clientId: string): Promise<AuthorizationCode> {
    const stored = await this.codes.findByHash(hashToken(code));
    if (!stored) throw invalidGrant('The authorization code is unknown.');
    if (stored.consumed) {
      await this.codes.flagReuse(stored.code.id);
      await this.#revoked(await this.tokens.revokeFamiliesOfCode(stored.code.id));
      throw invalidGrant('The authorization code was used already; the tokens issued from it are revoked.');
    }
    return checkCode(stored.code, clientId);
  }

  /**
   * Uses the code up (exactly one caller succeeds) and returns it. A second consumption revokes
   * every token issued from the code and fails `invalid_grant`; so does an expired code or one
   * issued to another client (which is used up all the same: it was exposed).
   */
  async consumeCode(code: string, clientId: string): Promise<AuthorizationCode> {
    const outcome = await this.codes.consume(hashToken(code));
    if (outcome.kind === 'unknown') throw invalidGrant('The authorization code is unknown.');
    if (outcome.kind === 'reused') {
      await this.#revoked(await this.tokens.revokeFamiliesOfCode(outcome.code.id));
      throw invalidGrant('The authorization code was used already; the tokens issued from it are revoked.');
    }
    return checkCode(outcome.code, clientId);
  }

  /**
   * Stores issued tokens as hashes, for the caller's user (docs/api/foundation.md, "Internal
   * calls"). Tokens for a user come only from that user's grant: with `authorizationCodeId`, the
   * code must be the caller's user's and the client's; with `rotatedFromRefresh`, the presented
   * refresh token must be active and the client's (same user, scopes no wider), else
   * `invalid_grant`. Tokens from neither are the client's own (client credentials), and a caller
   * with a user is then PERMISSION_DENIED `forbidden`: no call mints a user's token out of
   * nothing. A rotated refresh token is marked used and the new pair joins its family. A refresh
   * token that was already used, now or by a concurrent request, is reuse: its family is revoked
   * and the call fails `invalid_grant`. With `authorizationCodeId`, a code that was meanwhile
   * reused fails the same way.
   *
   * A rotation revokes the access token issued with the refresh token being exchanged; a new
   * authorization beyond OAUTH_TOKEN_LIMITS revokes the one of the same client and user (of the
   * client alone, for app-only tokens) issued least recently. Both are announced to the gateways
   * like every revocation (docs/api/accounts.md, "Codes and tokens").
   */
  async saveTokens(caller: Viewer, issue: TokenIssue): Promise<SavedTokens> {
    const userId = caller.userId;
    if (issue.accessToken === '') throw invalidRequest('The access token is empty.');
    if (Number.isNaN(issue.accessExpiresAt.getTime())) throw invalidRequest('access_expires_at is required.');
    if ((issue.refreshToken === undefined) !== (issue.refreshExpiresAt === undefined)) throw invalidRequest('A refresh token needs refresh_expires_at, and only then.');
    if (issue.rotatedFromRefresh !== undefined && issue.authorizationCodeId !== undefined) throw invalidRequest('Tokens come from a code or from a refresh token, not both.');
    if (userId !== undefined && issue.rotatedFromRefresh === undefined && issue.authorizationCodeId === undefined) {
      throw AppError.forbidden("A user's token is issued only from their authorization code or refresh token.");
    }
    if (userId !== undefined && (!isUserId(userId) || !(await this.users.findById(userId)))) throw AppError.notFound('user');
    const scopes = knownScopes(issue.scopes);
    if (!(await this.clients.findWithSecret(issue.clientId))) throw new AppError(ErrorCode.NOT_FOUND, 'The client does not exist.', { details: [{ reason: 'invalid_client' }] });

    let rotatedFromRefreshId: string | undefined;
    let familyId: string | undefined;
    if (issue.rotatedFromRefresh !== undefined) {
      const old = await this.#activeRefresh(issue.rotatedFromRefresh);
      if (old.clientId !== issue.clientId || old.userId !== userId) throw invalidGrant('The refresh token was issued to another client or user.');
      const wider = scopes.filter((scope) => !old.scopes.includes(scope));
      if (wider.length > 0) throw invalidRequest(`A refresh cannot add scopes: ${wider.join(', ')}.`, 'invalid_scope');
      rotatedFromRefreshId = old.tokenId;
      familyId = old.familyId;
    }
    const outcome = await this.tokens.save({
      accessTokenHash: hashToken(issue.accessToken),
      accessExpiresAt: issue.accessExpiresAt,
      ...(issue.refreshToken === undefined || issue.refreshExpiresAt === undefined ? {} : { refresh: { tokenHash: hashToken(issue.refreshToken), expiresAt: issue.refreshExpiresAt } }),
      clientId: issue.clientId,
      ...(userId === undefined ? {} : { userId }),
      scopes,
      ...(issue.authorizationCodeId === undefined ? {} : { authorizationCodeId: issue.authorizationCodeId }),
      ...(rotatedFromRefreshId === undefined ? {} : { rotatedFromRefreshId }),
      maxActiveFamilies: userId === undefined ? OAUTH_TOKEN_LIMITS.maxActiveAppOnly : OAUTH_TOKEN_LIMITS.maxActivePerAppUser,
    });
    if (outcome.kind === 'code_reused') throw invalidGrant('The authorization code was used again; no tokens are issued from it.');
    if (outcome.kind === 'code_mismatch') throw invalidGrant('The authorization code was issued to another client or user.');
    if (outcome.kind === 'refresh_lost') {
      // Another request rotated (or revoked) this refresh token first: treat as reuse.
      if (familyId !== undefined) await this.#revoked(await this.tokens.revokeFamily(familyId));
      throw invalidGrant('The refresh token was used already; its whole family is revoked.');
    }
    await this.#revoked(outcome.revoked);
    return { accessToken: outcome.accessToken, ...(outcome.refreshToken === undefined ? {} : { refreshToken: outcome.refreshToken }) };
  }

  /** What an access token (OAuth or personal) stands for; UNAUTHENTICATED `invalid_token` when unknown, expired or revoked. */
  async getAccessToken(token: string): Promise<AccessTokenInfo> {
    const stored = token === '' ? undefined : await this.tokens.findAccessToken(hashToken(token));
    if (!stored || stored.revoked || !notExpired(stored.token.expiresAt, new Date())) throw invalidToken();
    return stored.token;
  }

  /**
   * What an active refresh token stands for; UNAUTHENTICATED `invalid_grant` when unknown,
   * expired or revoked. Presenting one that was used already revokes its whole family.
   */
  async getRefreshToken(token: string): Promise<RefreshTokenInfo> {
    return this.#activeRefresh(token);
  }

  /**
   * Revokes an access token, or a refresh token with its whole family (RFC 7009). True when
   * something active was revoked; false for unknown or already inactive tokens. With `clientId`,
   * a token issued to another client (or a personal token) is PERMISSION_DENIED `unauthorized_client`.
   */
  async revokeToken(token: string, clientId: string | undefined): Promise<boolean> {
    if (token === '') return false;
    const hash = hashToken(token);
    const access = await this.tokens.findAccessToken(hash);
    if (access) {
      assertClient(access.token.clientId, clientId);
      return (await this.#revoked(await this.tokens.revokeAccessToken(access.token.tokenId))) > 0;
    }
    const refresh = await this.tokens.findRefreshToken(hash);
    if (refresh) {
      assertClient(refresh.token.clientId, clientId);
      return (await this.#revoked(await this.tokens.revokeFamily(refresh.token.familyId))) > 0;
    }
    return false;
  }

  /**
   * The scopes `userId` grants each of `appIds` now (docs/api/webhooks.md, "Private events"): the
   * union of the scopes of their active tokens of each app; apps without an active authorization
   * (never given, revoked, expired) are left out. An id that is not a user's has none.
   */
  async appScopes(userId: string, appIds: readonly string[]): Promise<Map<string, string[]>> {
    if (!isUserId(userId) || appIds.length === 0) return new Map();
    return this.tokens.appScopesOfUser(userId, [...new Set(appIds)]);
  }

  /** Revokes every token of `userId` (OAuth tokens of every client, and personal tokens); returns how many were active. */
  async revokeUserTokens(userId: string): Promise<number> {
    if (!isUserId(userId)) throw AppError.notFound('user');
    return this.#revoked(await this.tokens.revokeFamiliesOfUser(userId));
  }

  async #activeRefresh(token: string): Promise<RefreshTokenInfo> {
    const stored = token === '' ? undefined : await this.tokens.findRefreshToken(hashToken(token));
    if (!stored || stored.revoked) throw invalidGrant('The refresh token is unknown or revoked.');
    if (stored.used) {
      await this.#revoked(await this.tokens.revokeFamily(stored.token.familyId));
      throw invalidGrant('The refresh token was used already; its whole family is revoked.');
    }
    if (!notExpired(stored.token.expiresAt, new Date())) throw invalidGrant('The refresh token has expired.');
    return stored.token;
  }

  /**
   * Deletes what can no longer be used (docs/api/accounts.md, "Codes and tokens"): access and
   * refresh tokens OAUTH_TOKEN_LIMITS.retainInactiveMs after they expired or were revoked (a used
   * refresh token stays until it expires, for reuse detection), codes as long after they expired,
   * and families left without tokens. Batches of `pruneBatchSize` rows per table, at most
   * `pruneMaxBatches` of them per call, so one sweep is bounded; the next sweep goes on.
   * Returns how many rows of each kind were deleted.
   */
  async pruneInactive(): Promise<Pruned> {
    const { retainInactiveMs, pruneBatchSize, pruneMaxBatches } = OAUTH_TOKEN_LIMITS;
    const total: Pruned = { accessTokens: 0, refreshTokens: 0, authorizationCodes: 0, families: 0 };
    for (let batch = 0; batch < pruneMaxBatches; batch++) {
      const pruned = await this.tokens.pruneInactive(new Date(Date.now() - retainInactiveMs), pruneBatchSize);
      total.accessTokens += pruned.accessTokens;
      total.refreshTokens += pruned.refreshTokens;
      total.authorizationCodes += pruned.authorizationCodes;
      total.families += pruned.families;
      if (Math.max(pruned.accessTokens, pruned.refreshTokens, pruned.authorizationCodes) < pruneBatchSize) break;
    }
    return total;
  }

  /** Announces revoked access tokens to the gateways; returns how many tokens were revoked. */
  async #revoked(revoked: Revoked): Promise<number> {
    if (revoked.accessTokenHashes.length > 0) await this.notifier.notify(revoked.accessTokenHashes);
    return revoked.count;
  }
}

function checkCode(code: AuthorizationCode, clientId: string): AuthorizationCode {
  if (code.clientId !== clientId) throw invalidGrant('The authorization code was issued to another client.');
  if (!notExpired(code.expiresAt, new Date())) throw invalidGrant('The authorization code has expired.');
  return code;
}

function assertClient(tokenClientId: string | undefined, clientId: string | undefined): void {
  if (clientId !== undefined && tokenClientId !== clientId) {
    throw new AppError(ErrorCode.PERMISSION_DENIED, 'The token was not issued to this client.', { details: [{ reason: 'unauthorized_client' }] });
  }
}
