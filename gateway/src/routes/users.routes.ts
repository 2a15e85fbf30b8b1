import type { GrpcClient } from '@inkwell/grpc';
import { FollowDirection, ListFollowsRequestSchema, UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { cursorPagination, defineDocumentSpec, defineListSpec, defineWriteSpec, identifierIds, writeValues, type DocumentResponder } from '../jsonapi/index.js';
import { AUTHORIZATION_LIST, authorizationsOf } from '../resources/authorization.resource.js';
import { FOLLOW_SCHEMA, followOf, followsOf } from '../resources/follow.resource.js';
import { USER_SCHEMA, userOf } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

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

/** GET /users/:id/following and /followers (docs/api/accounts.md, "Follows"): oldest first, cursor pages (docs/api/lists.md), no filters or sort. */
const FOLLOW_LIST = defineListSpec({
  resource: FOLLOW_SCHEMA,
  types: [USER_SCHEMA],
  includes: ['follower', 'followed'],
  filters: {},
  pagination: cursorPagination(ListFollowsRequestSchema.field.pageSize),
});

/**
 * The `/users` endpoints (paths relative to /api/v1). `:id` accepts `me` everywhere
 * (docs/api/foundation.md, "Transport and routing"). Reading needs only a valid token (`email` is the users service's decision:
 * the caller's own record with read_user); PATCH, follow and unfollow need write_user and act
 * as the user in the path, which must be the caller (another id is 403 `forbidden`, checked
 * before the body so that nothing about the body is revealed to the wrong caller).
 */
export function usersRoutes({ users, links, documents }: UsersRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  const followList = (path: '/users/:id/following' | '/users/:id/followers', summary: string, direction: FollowDirection) =>
    route.list({
      path,
      doc: { summary },
      params: { id: 'user' },
      query: FOLLOW_LIST,
      toRequest: ({ params }) => ({ userId: params.id, direction }),
      rpc: rpcOf(users, UsersService.method.listFollows),
      toResources: followsOf,
    });

  return [
    route.read({
      path: '/users/:id',
      doc: { summary: 'A user (`email` only on your own record, with read_user).' },
      params: { id: 'user' },
      query: USER_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(users, UsersService.method.getUser),
      toResource: userOf,
    }),
    route.update({
      path: '/users/:id',
      doc: { summary: 'Change your own account (bio, email).' },
      params: { id: 'user' },
      query: USER_DOCUMENT,
      body: USER_UPDATE,
      toRequest: ({ params, body }) => ({ id: params.id, bio: body.attributes.bio, email: body.attributes.email }),
      rpc: rpcOf(users, UsersService.method.updateUser),
      toResource: userOf,
    }),
    followList('/users/:id/following', 'Whom a user follows, oldest first.', FollowDirection.FOLLOWING),
    followList('/users/:id/followers', 'Who follows a user, oldest first.', FollowDirection.FOLLOWERS),
    route.create({
      path: '/users/:id/following',
      doc: { summary: 'Follow a user (`:id` is you).', nullableData: true },
      params: { id: 'user' },
      query: FOLLOW_DOCUMENT,
      body: FOLLOW_CREATE,
      toRequest: ({ params, body }) => ({ followerId: params.id, followedId: body.relationships.followed ?? '' }),
      rpc: rpcOf(users, UsersService.method.followUser),
      toResource: followOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/users/:id/following/:following_id',
      doc: { summary: 'Unfollow a user (`:id` is you).' },
      params: { id: 'user' },
      toRequest: ({ params }) => ({ followerId: params.id, followedId: params.following_id }),
      rpc: rpcOf(users, UsersService.method.unfollowUser),
    }),
    // `:id` is you (another user's is 404, the service's rule); only a personal token may call
    // (the RPCs' first_party access option: an app's token is 403 whatever its scopes).
    route.list({
      path: '/users/:id/authorizations',
      doc: { summary: 'The apps you authorized (`:id` is you), oldest grant first. Personal access tokens only.' },
      params: { id: 'user' },
      query: AUTHORIZATION_LIST,
      toRequest: ({ params }) => ({ userId: params.id }),
      rpc: rpcOf(users, UsersService.method.listAuthorizations),
      toResources: authorizationsOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/users/:id/authorizations/:app_id',
      doc: { summary: "Revoke an app's access (`:id` is you): all its tokens stop working at once. Personal access tokens only." },
      params: { id: 'user', app_id: 'client' },
      toRequest: ({ params }) => ({ userId: params.id, clientId: params.app_id }),
      rpc: rpcOf(users, UsersService.method.revokeAuthorization),
    }),
  ];
}
