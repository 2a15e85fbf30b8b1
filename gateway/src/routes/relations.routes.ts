import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import { RelationsService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineDocumentSpec, type DocumentResponder } from '../jsonapi/index.js';
import { BLOCK_CREATE, BLOCK_LIST, BLOCK_SCHEMA, blockOf, blocksOf, MUTE_CREATE, MUTE_LIST, MUTE_SCHEMA, muteOf, mutesOf } from '../resources/relation.resource.js';
import { TAG_SCHEMA } from '../resources/tag.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the block and mute routes need: the relations client (served by the users process), the link builder and the document responder. */
export interface RelationsRoutesDeps {
  readonly relations: GrpcClient<typeof RelationsService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/** The response of POST /users/me/blocks: `include=blocker,blocked` and fields. */
const BLOCK_DOCUMENT = defineDocumentSpec({ resource: BLOCK_SCHEMA, types: [USER_SCHEMA], includes: ['blocker', 'blocked'] });
/** The response of POST /users/me/mutes: `include=muter,author,tag` and fields. */
const MUTE_DOCUMENT = defineDocumentSpec({ resource: MUTE_SCHEMA, types: [USER_SCHEMA, TAG_SCHEMA], includes: ['muter', 'author', 'tag'] });

/**
 * The block and mute endpoints (docs/api/safety.md, "Blocking" and "Muting"), always the
 * caller's own (`/users/me/...`): writes need write_user, lists read_user, both a signed-in user
 * (the RPCs' access options).
 */
export function relationsRoutes({ relations, links, documents }: RelationsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/users/me/blocks',
      doc: { summary: 'The users you block, newest first.' },
      query: BLOCK_LIST,
      toRequest: () => ({}),
      rpc: rpcOf(relations, RelationsService.method.listBlocks),
      toResources: blocksOf,
    }),
    route.create({
      path: '/users/me/blocks',
      doc: { summary: 'Block a user: they can no longer message, follow or comment on you, and every follow between you ends.' },
      query: BLOCK_DOCUMENT,
      body: BLOCK_CREATE,
      toRequest: ({ body }) => ({ blockedId: body.relationships.blocked ?? '' }),
      rpc: rpcOf(relations, RelationsService.method.blockUser),
      toResource: blockOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/users/me/blocks/:id',
      doc: { summary: 'Unblock a user (`:id` is the blocked user).' },
      toRequest: ({ params }) => ({ blockedId: params.id }),
      rpc: rpcOf(relations, RelationsService.method.unblockUser),
    }),
    route.list({
      path: '/users/me/mutes',
      doc: { summary: 'The authors and tags you mute, newest first.' },
      query: MUTE_LIST,
      toRequest: () => ({}),
      rpc: rpcOf(relations, RelationsService.method.listMutes),
      toResources: mutesOf,
    }),
    route.create({
      path: '/users/me/mutes',
      doc: { summary: 'Mute an author or a tag: their stories leave your GET /stories and your notifications.' },
      query: MUTE_DOCUMENT,
      body: MUTE_CREATE,
      toRequest: ({ body }) => ({ target: muteTargetOf(body.relationships) }),
      rpc: rpcOf(relations, RelationsService.method.muteTarget),
      toResource: muteOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/users/me/mutes/:id',
      doc: { summary: 'Unmute (`:id` is the mute).' },
      toRequest: ({ params }) => ({ muteId: params.id }),
      rpc: rpcOf(relations, RelationsService.method.unmuteTarget),
    }),
  ];
}

/** The target of a mute body: its `author` or its `tag`; both is 422, neither leaves the request's required target unset (422 too). */
function muteTargetOf({ author, tag }: { readonly author?: string | null; readonly tag?: string | null }) {
  if (typeof author === 'string' && typeof tag === 'string') throw AppError.validation('/data/relationships', 'A mute names an author or a tag, not both.');
  if (typeof author === 'string') return { case: 'authorId' as const, value: author };
  if (typeof tag === 'string') return { case: 'tagId' as const, value: tag };
  return { case: undefined };
}
