import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  AccessTokenSchema,
  AuthorizationCodeSchema,
  OAuthClientSchema,
  PersonalTokenSchema,
  RefreshTokenSchema,
  type AccessToken as ProtoAccessToken,
  type AuthorizationCode as ProtoAuthorizationCode,
  type OAuthClient as ProtoOAuthClient,
  type PersonalToken as ProtoPersonalToken,
  type RefreshToken as ProtoRefreshToken,
} from '@inkwell/proto/users';
import type { AccessTokenInfo, AuthorizationCode, OAuthClient, PersonalToken, RefreshTokenInfo } from '../domain/oauth.js';

/** Domain client → proto OAuthClient (never a secret). */
export function toProtoClient(client: OAuthClient): ProtoOAuthClient {
  return create(OAuthClientSchema, {
    id: client.id,
    name: client.name,
    redirectUris: client.redirectUris,
    allowedOrigins: client.allowedOrigins,
    confidential: client.confidential,
    ...(client.ownerUserId === undefined ? {} : { ownerUserId: client.ownerUserId }),
    dateCreated: timestampFromDate(client.dateCreated),
  });
}

/** Domain authorization code → proto AuthorizationCode. */
export function toProtoCode(code: AuthorizationCode): ProtoAuthorizationCode {
  return create(AuthorizationCodeSchema, {
    id: code.id,
    clientId: code.clientId,
    userId: code.userId,
    redirectUri: code.redirectUri,
    scopes: code.scopes,
    codeChallenge: code.codeChallenge,
    codeChallengeMethod: code.codeChallengeMethod,
    expiresAt: timestampFromDate(code.expiresAt),
  });
}

/** Domain access token → proto AccessToken; `client_id` is empty for personal tokens. */
export function toProtoAccessToken(token: AccessTokenInfo): ProtoAccessToken {
  return create(AccessTokenSchema, {
    tokenId: token.tokenId,
    ...(token.userId === undefined ? {} : { userId: token.userId }),
    clientId: token.clientId ?? '',
    scopes: token.scopes,
    ...(token.expiresAt === undefined ? {} : { expiresAt: timestampFromDate(token.expiresAt) }),
    personal: token.personal,
    dateCreated: timestampFromDate(token.dateCreated),
    tokenHash: token.tokenHash,
  });
}

/** Domain refresh token → proto RefreshToken. */
export function toProtoRefreshToken(token: RefreshTokenInfo): ProtoRefreshToken {
  return create(RefreshTokenSchema, {
    tokenId: token.tokenId,
    ...(token.userId === undefined ? {} : { userId: token.userId }),
    clientId: token.clientId,
    scopes: token.scopes,
    expiresAt: timestampFromDate(token.expiresAt),
    familyId: token.familyId,
    dateCreated: timestampFromDate(token.dateCreated),
  });
}

/** Domain personal token → proto PersonalToken (metadata only). */
export function toProtoPersonalToken(token: PersonalToken): ProtoPersonalToken {
  return create(PersonalTokenSchema, {
    id: token.id,
    userId: token.userId,
    name: token.name,
    scopes: token.scopes,
    dateCreated: timestampFromDate(token.dateCreated),
    ...(token.expiresAt === undefined ? {} : { expiresAt: timestampFromDate(token.expiresAt) }),
  });
}
