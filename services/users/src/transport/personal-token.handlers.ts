import type { ServiceImpl } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import type { PersonalTokenService } from '../services/personal-token.service.js';
import { toProtoPersonalToken } from './oauth.mappers.js';
import { optionalDate } from './user.mappers.js';

type PersonalTokenHandlers = Pick<ServiceImpl<typeof UsersService>, 'createPersonalToken' | 'listPersonalTokens' | 'revokePersonalToken'>;

/** gRPC handlers of the personal access token RPCs: decode → one service call → encode; no rules. */
export function personalTokenHandlers(personalTokens: PersonalTokenService): PersonalTokenHandlers {
  return {
    async createPersonalToken(request) {
      const expiresAt = optionalDate(request.expiresAt);
      const created = await personalTokens.create({ userId: request.userId, name: request.name, scopes: request.scopes, ...(expiresAt === undefined ? {} : { expiresAt }) });
      return { token: created.token, personalToken: toProtoPersonalToken(created.personalToken) };
    },
    async listPersonalTokens(request) {
      return { personalTokens: (await personalTokens.list(request.userId)).map(toProtoPersonalToken) };
    },
    async revokePersonalToken(request) {
      await personalTokens.revoke(request.userId, request.tokenId);
      return {};
    },
  };
}
