import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { generateToken, isScope } from '@inkwell/auth-tokens';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import type { OAuthClient, UsersService } from '@inkwell/proto/users';
import OAuth2Server from '@node-oauth/oauth2-server';

/** The users-service calls the OAuth model makes. */
export type OAuthUsersClient = Pick<
  GrpcClient<typeof UsersService>,
  'getClient' | 'verifyClientSecret' | 'saveAuthorizationCode' | 'consumeAuthorizationCode' | 'saveTokens' | 'getAccessToken' | 'getRefreshToken'
>;

/** A client as @node-oauth/oauth2-server sees it, with our fields. */
export interface ModelClient extends OAuth2Server.Client {
  readonly id: string;
  readonly name: string;
  readonly redirectUris: string[];
  readonly grants: string[];
  readonly confidential: boolean;
}

/** The user of a grant: a user id, or the app itself for client credentials. */
export type ModelUser = { readonly id: string; readonly appOnly?: false } | { readonly id?: undefined; readonly appOnly: true };

/** Grants by client type: public clients (no secret) cannot use client credentials. */
const CONFIDENTIAL_GRANTS = ['authorization_code', 'refresh_token', 'client_credentials'];
const PUBLIC_GRANTS = ['authorization_code', 'refresh_token'];

/** The library's client object for one of our OAuth clients. */
export function toModelClient(client: OAuthClient): ModelClient {
  return {
    id: client.id,
    name: client.name,
    redirectUris: [...client.redirectUris],
    grants: client.confidential ? CONFIDENTIAL_GRANTS : PUBLIC_GRANTS,
    confidential: client.confidential,
  };
}

/**
 * The storage model of @node-oauth/oauth2-server for ONE request, backed by the users service
 * over gRPC (which stores codes and tokens only as hashes). One instance per request, because
 * the library's model calls do not carry everything the users service needs: the client that
 * presents a code (remembered from getClient), the code a token comes from, and the refresh
 * token being rotated.
 *
 * - `getClient(id, null)` (authorization requests) looks the client up; `getClient(id, secret)`
 *   checks the secret (VerifyClientSecret, constant time); `getClient(id, undefined)` (a token
 *   request without a secret) only finds public clients, so a confidential client must always
 *   authenticate. Public clients never get the client_credentials grant.
 * - Codes are consumed atomically when they are looked up (ConsumeAuthorizationCode: exactly
 *   one exchange succeeds, a replay fails and revokes what the code issued); the library's
 *   later revokeAuthorizationCode is then a formality. PKCE is verified by the library after that.
 * - Refresh tokens rotate in SaveTokens (`rotated_from_refresh`): the old token is marked used
 *   in the same transaction as the new pair is stored, and presenting a used one again revokes
 *   its whole family. The library's revokeToken before saveToken is a formality for the same reason.
 * - Scopes: every requested scope must be one of docs/api/accounts.md, "Scopes" (else `invalid_scope`);
 *   app-only tokens carry no scopes at all, so client credentials with a scope is `invalid_scope`.
 * - Tokens and codes come from @inkwell/auth-tokens' generateToken (prefixed, 256 bits).
 * - Codes and tokens are stored for the user the call is signed as (docs/api/foundation.md,
 *   "Internal calls"): SaveAuthorizationCode as the signed-in user who consented, SaveTokens as
 *   the user of the code or refresh token they come from (none for client credentials). The
 *   users service takes the user from that signature only, and checks it against the grant.
 * Users-service answers that mean "no" become the library's OAuth errors; anything else reaches
 * the library as an unexpected error (server_error).
 */
export class OAuthModel {
  readonly #users: OAuthUsersClient;
  readonly #caller: CallerContext;
  #client: ModelClient | undefined;
  #codeId: string | undefined;
  #rotatingFrom = '';
  #storeRedirectUri = true;

  constructor(users: OAuthUsersClient, requestId: string) {
    this.#users = users;
    this.#caller = { requestId, scopes: [] };
  }

  /**
   * The authorization request left redirect_uri out (the client's only registered URI is used):
   * the code is then stored without one, so the token request need not name it either
   * (RFC 6749 §4.1.3 requires it there only when the authorization request had it).
   */
  redirectUriWasOmitted(): void {
    this.#storeRedirectUri = false;
  }

  /** The client authenticated or looked up during this request, if any. */
  get client(): ModelClient | undefined {
    return this.#client;
  }

  async getClient(clientId: string, clientSecret: string | null | undefined): Promise<ModelClient | false> {
    let found: OAuthClient | undefined;
    try {
      if (typeof clientSecret === 'string') {
        found = (await this.#users.verifyClientSecret({ clientId, clientSecret }, { caller: this.#caller })).client;
      } else {
        found = (await this.#users.getClient({ clientId }, { caller: this.#caller })).client;
        if (clientSecret === undefined && found?.confidential === true) return false;
      }
    } catch (error) {
      if (isAppError(error) && (error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.UNAUTHENTICATED || error.code === ErrorCode.INVALID_ARGUMENT)) return false;
      throw error;
    }
    if (found === undefined) return false;
    this.#client = toModelClient(found);
    return this.#client;
  }

  async validateRedirectUri(redirectUri: string, client: ModelClient): Promise<boolean> {
    return client.redirectUris.includes(redirectUri);
  }

  async validateScope(user: ModelUser, _client: ModelClient, scope: string[] | undefined): Promise<string[] | false> {
    const requested = scope ?? [];
    if (user.appOnly === true) return requested.length === 0 ? [] : false;
    return requested.every(isScope) ? [...new Set(requested)] : false;
  }

  async generateAuthorizationCode(): Promise<string> {
    return generateToken('authorizationCode');
  }

  async generateAccessToken(): Promise<string> {
    return generateToken('accessToken');
  }

  async generateRefreshToken(): Promise<string> {
    return generateToken('refreshToken');
  }

  async saveAuthorizationCode(
    code: Pick<OAuth2Server.AuthorizationCode, 'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'>,
    client: ModelClient,
    user: ModelUser,
  ): Promise<OAuth2Server.AuthorizationCode> {
    if (user.id === undefined) throw new Error('an authorization code needs a user');
    await this.#users.saveAuthorizationCode(
      {
        code: code.authorizationCode,
        clientId: client.id,
        redirectUri: this.#storeRedirectUri ? code.redirectUri : '',
        scopes: code.scope ?? [],
        codeChallenge: code.codeChallenge ?? '',
        codeChallengeMethod: code.codeChallenge === undefined ? '' : (code.codeChallengeMethod ?? 'S256'),
        expiresAt: timestampFromDate(code.expiresAt),
      },
      { caller: this.#as(user) },
    );
    return { ...code, client, user };
  }

  async getAuthorizationCode(authorizationCode: string): Promise<OAuth2Server.AuthorizationCode | false> {
    const client = this.#client;
    if (client === undefined) return false;
    let consumed;
    try {
      consumed = (await this.#users.consumeAuthorizationCode({ code: authorizationCode, clientId: client.id }, { caller: this.#caller })).authorizationCode;
    } catch (error) {
      if (isAppError(error) && (error.code === ErrorCode.UNAUTHENTICATED || error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.INVALID_ARGUMENT)) return false;
      throw error;
    }
    if (consumed === undefined || consumed.expiresAt === undefined) return false;
    this.#codeId = consumed.id;
    return {
      authorizationCode,
      expiresAt: timestampDate(consumed.expiresAt),
      redirectUri: consumed.redirectUri,
      scope: [...consumed.scopes],
      client: { id: consumed.clientId, grants: [] },
      user: { id: consumed.userId } satisfies ModelUser,
      ...(consumed.codeChallenge === '' ? {} : { codeChallenge: consumed.codeChallenge, codeChallengeMethod: consumed.codeChallengeMethod || 'S256' }),
    };
  }

  async revokeAuthorizationCode(): Promise<boolean> {
    return this.#codeId !== undefined;
  }

  async getRefreshToken(refreshToken: string): Promise<OAuth2Server.RefreshToken | false> {
    let token;
    try {
      token = (await this.#users.getRefreshToken({ refreshToken }, { caller: this.#caller })).token;
    } catch (error) {
      if (isAppError(error) && (error.code === ErrorCode.UNAUTHENTICATED || error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.INVALID_ARGUMENT)) return false;
      throw error;
    }
    if (token === undefined || token.userId === undefined) return false;
    this.#rotatingFrom = refreshToken;
    return {
      refreshToken,
      ...(token.expiresAt === undefined ? {} : { refreshTokenExpiresAt: timestampDate(token.expiresAt) }),
      scope: [...token.scopes],
      client: { id: token.clientId, grants: [] },
      user: { id: token.userId } satisfies ModelUser,
    };
  }

  async revokeToken(): Promise<boolean> {
    return this.#rotatingFrom !== '';
  }

  async getUserFromClient(client: ModelClient): Promise<ModelUser | false> {
    return client.confidential ? { appOnly: true } : false;
  }

  async saveToken(token: OAuth2Server.Token, client: ModelClient, user: ModelUser): Promise<OAuth2Server.Token> {
    if (token.accessTokenExpiresAt === undefined) throw new Error('access tokens always expire');
    try {
      await this.#users.saveTokens(
        {
          accessToken: token.accessToken,
          accessExpiresAt: timestampFromDate(token.accessTokenExpiresAt),
          refreshToken: token.refreshToken ?? '',
          ...(token.refreshTokenExpiresAt === undefined ? {} : { refreshExpiresAt: timestampFromDate(token.refreshTokenExpiresAt) }),
          clientId: client.id,
          scopes: token.scope ?? [],
          ...(this.#codeId === undefined ? {} : { authorizationCodeId: this.#codeId }),
          rotatedFromRefresh: this.#rotatingFrom,
        },
        { caller: this.#as(user) },
      );
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.UNAUTHENTICATED) {
        throw new OAuth2Server.InvalidGrantError(this.#rotatingFrom === '' ? 'Invalid grant: authorization code is invalid' : 'Invalid grant: refresh token is invalid');
      }
      throw error;
    }
    return { ...token, client, user };
  }

  /** The caller of a call acting for `user`: the gateway signs it as that user (no scopes: no API token is involved), or as itself for an app alone. */
  #as(user: ModelUser): CallerContext {
    return user.id === undefined ? this.#caller : { ...this.#caller, userId: user.id };
  }

  /** Part of the library's model interface; the gateway authenticates API requests itself (bearer-auth), so this is unused. */
  async getAccessToken(): Promise<false> {
    return false;
  }
}
