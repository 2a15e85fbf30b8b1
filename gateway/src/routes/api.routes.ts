import type { RouteDefinition } from '../routing/route.types.js';
import { privateMessagesRoutes, type PrivateMessagesRoutesDeps } from './private-messages.routes.js';
import { usersRoutes, type UsersRoutesDeps } from './users.routes.js';

/** Everything the API's route files need; main.ts builds it once. */
export type ApiRoutesDeps = UsersRoutesDeps & PrivateMessagesRoutesDeps;

/** Every route of /api/v1: one line per domain file. */
export function apiRoutes(deps: ApiRoutesDeps): RouteDefinition[] {
  return [...usersRoutes(deps), ...privateMessagesRoutes(deps)];
}
