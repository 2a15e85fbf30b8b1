import type { ServiceImpl } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import type { OAuthClientService } from '../services/oauth-client.service.js';
import type { OAuthTokenService } from '../services/oauth-token.service.js';
import { toProtoAccessToken, toProtoClient, toProtoCode, toProtoRefreshToken } from './oauth.mappers.js';
import { nonEmpty, optionalDate, requiredDate } from './user.mappers.js';

type OAuthHandlers = Pick<
  ServiceImpl<typeof UsersService>,
  | 'createClient'
  | 'listClients'
  | 'getClient'
  | 'checkWebOrigin'
  | 'deleteClient'
  | 'verifyClientSecret'
  | 'saveAuthorizationCode'
  | 'getAuthorizationCode'
  | 'consumeAuthorizationCode'
  | 'saveTokens'
  | 'getAccessToken'
  | 'getRefreshToken'
  | 'revokeToken'
  | 'revokeUserTokens'
  | 'getUserAppScopes'
>;

/**
 * gRPC handlers of the OAuth store RPCs (clients, codes, tokens): decode → one service call →
 * encode; no rules. The user an app, code or token belongs to is the call's verified caller
 * (docs/api/foundation.md, "Internal calls"), never a request field.
 */
export function oauthHandlers(clients: OAuthClientService, tokens: OAuthTokenService): OAuthHandlers {
  return {
    async createClient(request, ctx) {
      const owner = ctx.caller.userId;
      const created = await clients.create({
        ...(owner === undefined ? {} : { ownerUserId: owner }),
        name: request.name,
        redirectUris: request.redirectUris,
        allowedOrigins: request.allowedOrigins,
        confidential: request.confidential,
      });
      return { client: toProtoClient(created.client), clientSecret: created.secret ?? '' };
    },
    async listClients(_request, ctx) {
      return { clients: (await clients.list(ctx.caller.userId)).map(toProtoClient) };
    },
    async getClient(request) {
      return { client: toProtoClient(await clients.get(request.clientId)) };
    },
    async checkWebOrigin(request) {
      return { registered: await clients.isOriginRegistered(request.origin) };
    },
    async deleteClient(request, ctx) {
      await clients.delete(request.clientId, ctx.caller.userId);
      return {};
    },
    async getUserAppScopes(request) {
      const granted = await tokens.appScopes(request.userId, request.appIds);
      return { apps: [...granted].map(([appId, scopes]) => ({ appId, scopes })) };
    },
    async verifyClientSecret(request) {
      return { client: toProtoClient(await clients.verifySecret(request.clientId, request.clientSecret)) };
    },
    async saveAuthorizationCode(request, ctx) {
      const code = await tokens.saveCode(ctx.caller, {
        code: request.code,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        scopes: request.scopes,
        codeChallenge: request.codeChallenge,
        codeChallengeMethod: request.codeChallengeMethod,
        expiresAt: requiredDate(request.expiresAt),
      });
      return { authorizationCode: toProtoCode(code) };
    },
    async getAuthorizationCode(request) {
      return { authorizationCode: toProtoCode(await tokens.getCode(request.code, request.clientId)) };
    },
    async consumeAuthorizationCode(request) {
      return { authorizationCode: toProtoCode(await tokens.consumeCode(request.code, request.clientId)) };
    },
    async saveTokens(request, ctx) {
      const refreshToken = nonEmpty(request.refreshToken);
      const refreshExpiresAt = optionalDate(request.refreshExpiresAt);
      const rotatedFromRefresh = nonEmpty(request.rotatedFromRefresh);
      const saved = await tokens.saveTokens(ctx.caller, {
        accessToken: request.accessToken,
        accessExpiresAt: requiredDate(request.accessExpiresAt),
        ...(refreshToken === undefined ? {} : { refreshToken }),
        ...(refreshExpiresAt === undefined ? {} : { refreshExpiresAt }),
        clientId: request.clientId,
        scopes: request.scopes,
        ...(request.authorizationCodeId === undefined ? {} : { authorizationCodeId: request.authorizationCodeId }),
        ...(rotatedFromRefresh === undefined ? {} : { rotatedFromRefresh }),
      });
      return {
        accessToken: toProtoAccessToken(saved.accessToken),
        ...(saved.refreshToken === undefined ? {} : { refreshToken: toProtoRefreshToken(saved.refreshToken) }),
      };
    },
    async getAccessToken(request) {
      return { token: toProtoAccessToken(await tokens.getAccessToken(request.accessToken)) };
    },
    async getRefreshToken(request) {
      return { token: toProtoRefreshToken(await tokens.getRefreshToken(request.refreshToken)) };
    },
    async revokeToken(request) {
      return { revoked: await tokens.revokeToken(request.token, nonEmpty(request.clientId)) };
    },
    async revokeUserTokens(request) {
      return { revokedCount: await tokens.revokeUserTokens(request.userId) };
    },
  };
}
