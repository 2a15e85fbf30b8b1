import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@inkwell/grpc';
import { AuthorizationSchema, type Authorization as ProtoAuthorization, type UsersService } from '@inkwell/proto/users';
import type { Authorization } from '../domain/authorization.js';
import type { AuthorizationService } from '../services/authorization.service.js';

type AuthorizationHandlers = Pick<ServiceImpl<typeof UsersService>, 'listAuthorizations' | 'revokeAuthorization'>;

/**
 * gRPC handlers of the authorized-apps RPCs: decode → one service call → encode; no rules.
 * The user is the call's verified caller (docs/api/foundation.md, "Internal calls").
 */
export function authorizationHandlers(authorizations: AuthorizationService): AuthorizationHandlers {
  return {
    async listAuthorizations(request, ctx) {
      const page = await authorizations.list(ctx.caller, request.userId, request.pageSize, request.after);
      return { authorizations: page.authorizations.map(toProtoAuthorization), nextAfter: page.nextAfter ?? '' };
    },
    async revokeAuthorization(request, ctx) {
      return { authorization: toProtoAuthorization(await authorizations.revoke(ctx.caller, request.userId, request.clientId)) };
    },
  };
}

/** Domain authorization → proto Authorization. */
function toProtoAuthorization(authorization: Authorization): ProtoAuthorization {
  return create(AuthorizationSchema, {
    clientId: authorization.clientId,
    appName: authorization.appName,
    scopes: authorization.scopes,
    dateGranted: timestampFromDate(authorization.dateGranted),
    dateLastUsed: timestampFromDate(authorization.dateLastUsed),
  });
}
