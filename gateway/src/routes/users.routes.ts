import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceDocument } from '../jsonapi/document.builder.js';
import { toUserResource } from '../resources/user.resource.js';
import { defineRoute, ok, type RouteDefinition } from '../routing/route.types.js';

/** What the users routes need: the users service client and the link builder. */
export interface UsersRoutesDeps {
  readonly users: GrpcClient<typeof UsersService>;
  readonly links: ApiLinks;
}

/** The `/users` endpoints (paths relative to /api/v1). `:id` accepts `me` everywhere (contract §1). */
export function usersRoutes({ users, links }: UsersRoutesDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/users/:id',
      params: { id: 'user' },
      async handler({ params, caller, selfLink }) {
        const { user } = await users.getUser({ id: params.id }, { caller });
        if (user === undefined) throw AppError.notFound('user');
        return ok(resourceDocument(toUserResource(user, links), selfLink));
      },
    }),
  ];
}
