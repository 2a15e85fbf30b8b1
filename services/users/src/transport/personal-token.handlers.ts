import type { ServiceImpl } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import type { PersonalTokenService } from '../services/personal-token.service.js';
import { toProtoPersonalToken } from './oauth.mappers.js';
import { optionalDate } from './user.mappers.js';

type PersonalTokenHandlers = Pick<ServiceImpl<typeof UsersService>, 'createPersonalToken' | 'listPersonalTokens' | 'revokePersonalToken'>;

/**
 * gRPC handlers of the personal access token RPCs: decode → one service call → encode; no rules.
 * The user is the call's verified caller (docs/api/foundation.md, "Internal calls").
 */
export function personalTokenHandlers(personalTokens: PersonalTokenService): PersonalTokenHandlers {
  return {
    async createPersonalToken(request, ctx) {
      const expiresAt = optionalDate(request.expiresAt);
      const created = await personalTokens.create(ctx.caller, { name: request.name, scopes: request.scopes, ...(expiresAt === undefined ? {} : { expiresAt }) });
      return { token: created.token, personalToken: toProtoPersonalToken(created.personalToken) };
    },
    async listPersonalTokens(_request, ctx) {
      return { personalTokens: (await personalTokens.list(ctx.caller)).map(toProtoPersonalToken) };
    },
    async revokePersonalToken(request, ctx) {
      await personalTokens.revoke(ctx.caller, request.tokenId);
      return {};
    },
  };
}
