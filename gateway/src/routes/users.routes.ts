import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import { FollowDirection, type UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import {
  defineDocumentSpec,
  defineListSpec,
  defineWriteSpec,
  identifierIds,
  parseCreateBody,
  parseDocumentQuery,
  parseListQuery,
  parseUpdateBody,
  writeValues,
  type DocumentResponder,
} from '../lists/index.js';
import { FOLLOW_SCHEMA, toFollowResource } from '../resources/follow.resource.js';
import { toUserResource, USER_SCHEMA } from '../resources/user.resource.js';
import { defineRoute, type ApiRequest, type ApiResponse, type RouteDefinition } from '../routing/route.types.js';

/** What the users routes need: the users service client, the link builder and the document responder. */
export interface UsersRoutesDeps {
  readonly users: GrpcClient<typeof UsersService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/** GET/PATCH /users/:id: `fields[user]`. */
const USER_DOCUMENT = defineDocumentSpec({ resource: USER_SCHEMA });

/** PATCH body: bio (Markdown, ≤ 1 MiB) and email; name, counts and dates are read-only (422). The users service validates the e-mail address. */
const USER_UPDATE = defineWriteSpec({
  resource: USER_SCHEMA,
  attributes: { bio: writeValues.string(), email: writeValues.string() },
});

/** POST /users/:id/following body: a follow whose `followed` relationship names the user to follow. */
const FOLLOW_CREATE = defineWriteSpec({
  resource: FOLLOW_SCHEMA,
  attributes: {},
  relationships: { followed: { type: 'user', many: false, id: identifierIds.numeric() } },
  requiredRelationships: ['followed'],
});

/** The response of POST /users/:id/following: `include=follower,followed` and fields. */
const FOLLOW_DOCUMENT = defineDocumentSpec({ resource: FOLLOW_SCHEMA, types: [USER_SCHEMA], includes: ['follower', 'followed'] });

/** GET /users/:id/following and /followers (docs/api/accounts.md, "Follows"): oldest first, cursor pages of 20 (max 100), no filters or sort. */
const FOLLOW_LIST = defineListSpec({
  resource: FOLLOW_SCHEMA,
  types: [USER_SCHEMA],
  includes: ['follower', 'followed'],
  filters: {},
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/**
 * The `/users` endpoints (paths relative to /api/v1). `:id` accepts `me` everywhere
 * (docs/api/foundation.md, "Transport and routing"). Reading needs only a valid token (`email` is the users service's decision:
 * the caller's own record with read_user); PATCH, follow and unfollow need write_user and act
 * as the user in the path, which must be the caller (another id is 403 `forbidden`, checked
 * before the body so that nothing about the body is revealed to the wrong caller).
 */
export function usersRoutes({ users, links, documents }: UsersRoutesDeps): RouteDefinition[] {
  const followList = (direction: FollowDirection) =>
    async function handler(request: ApiRequest<'id'>): Promise<ApiResponse> {
      const query = parseListQuery(FOLLOW_LIST, request.query);
      const position = await documents.cursorStart(request, query);
      const { follows, nextAfter } = await users.listFollows({ userId: request.params.id, direction, pageSize: query.page.size, after: position.after }, { caller: request.caller });
      return documents.cursorPage(request, query, position, follows.map(toFollowResource), nextAfter);
    };

  return [
    defineRoute({
      method: 'GET',
      path: '/users/:id',
      doc: { summary: 'A user (`email` only on your own record, with read_user).', query: USER_DOCUMENT },
      params: { id: 'user' },
      async handler(request) {
        const query = parseDocumentQuery(USER_DOCUMENT, request.query);
        const { user } = await users.getUser({ id: request.params.id }, { caller: request.caller });
        if (user === undefined) throw AppError.notFound('user');
        return documents.resource(request, query, toUserResource(user, links));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/users/:id',
      doc: { summary: 'Change your own account (bio, email).', query: USER_DOCUMENT, body: USER_UPDATE },
      params: { id: 'user' },
      scope: 'write_user',
      requiresUser: true,
      async handler(request) {
        const id = request.params.id;
        const query = parseDocumentQuery(USER_DOCUMENT, request.query);
        const body = parseUpdateBody(USER_UPDATE, meAsId(request.body, id), id);
        const { user } = await users.updateUser({ id, bio: body.attributes.bio, email: body.attributes.email }, { caller: request.caller });
        if (user === undefined) throw AppError.notFound('user');
        return documents.resource(request, query, toUserResource(user, links));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/:id/following',
      doc: { summary: 'Whom a user follows, oldest first.', query: FOLLOW_LIST },
      params: { id: 'user' },
      handler: followList(FollowDirection.FOLLOWING),
    }),
    defineRoute({
      method: 'GET',
      path: '/users/:id/followers',
      doc: { summary: 'Who follows a user, oldest first.', query: FOLLOW_LIST },
      params: { id: 'user' },
      handler: followList(FollowDirection.FOLLOWERS),
    }),
    defineRoute({
      method: 'POST',
      path: '/users/:id/following',
      doc: { summary: 'Follow a user (`:id` is you).', query: FOLLOW_DOCUMENT, body: FOLLOW_CREATE, nullableData: true },
      params: { id: 'user' },
      scope: 'write_user',
      requiresUser: true,
      async handler(request) {
        const followerId = request.params.id;
        const query = parseDocumentQuery(FOLLOW_DOCUMENT, request.query);
        const body = parseCreateBody(FOLLOW_CREATE, request.body);
        const { follow } = await users.followUser({ followerId, followedId: body.relationships.followed ?? '' }, { caller: request.caller });
        return documents.resource(request, query, follow === undefined ? null : toFollowResource(follow), { status: 201 });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/:id/following/:following_id',
      doc: { summary: 'Unfollow a user (`:id` is you).' },
      params: { id: 'user' },
      scope: 'write_user',
      requiresUser: true,
      async handler(request) {
        const followerId = request.params.id;
        await users.unfollowUser({ followerId, followedId: request.params.following_id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
  ];
}

/**
 * A PATCH of `/users/me` may name the resource `"me"` in `data.id` as well as by its numeric id;
 * either way it must be the user of the URL (already resolved to `id`).
 */
function meAsId(body: unknown, id: string): unknown {
  const data = (body as { data?: { id?: unknown } } | null | undefined)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data.id !== 'me') return body;
  return { ...(body as object), data: { ...data, id } };
}
