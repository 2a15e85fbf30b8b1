import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { IssuerTable, ServiceImpl } from '@inkwell/grpc';
import { BlockSchema, MuteSchema, type Block as ProtoBlock, type Mute as ProtoMute, type RelationsService } from '@inkwell/proto/users';
import type { Block, Mute, MuteTarget } from '../domain/relations.js';
import type { RelationService } from '../services/relation.service.js';

/** gRPC handlers of RelationsService: decode → one service call → encode; no rules. */
export function relationHandlers(relations: RelationService): ServiceImpl<typeof RelationsService> {
  return {
    async blockUser(request, ctx) {
      return { block: toProtoBlock(await relations.block(ctx.caller, request.blockedId)) };
    },
    async unblockUser(request, ctx) {
      return { block: toProtoBlock(await relations.unblock(ctx.caller, request.blockedId)) };
    },
    async listBlocks(request, ctx) {
      const page = await relations.listBlocks(ctx.caller, request.pageSize, request.after);
      return { blocks: page.items.map(toProtoBlock), nextAfter: page.nextAfter ?? '' };
    },
    async muteTarget(request, ctx) {
      // The request rule (a required oneof) admits only these two cases.
      const target: MuteTarget = request.target.case === 'authorId' ? { authorId: request.target.value } : { tagId: request.target.value ?? '' };
      return { mute: toProtoMute(await relations.mute(ctx.caller, target)) };
    },
    async unmuteTarget(request, ctx) {
      return { mute: toProtoMute(await relations.unmute(ctx.caller, request.muteId)) };
    },
    async listMutes(request, ctx) {
      const page = await relations.listMutes(ctx.caller, request.pageSize, request.after);
      return { mutes: page.items.map(toProtoMute), nextAfter: page.nextAfter ?? '' };
    },
    async checkBlock(request) {
      return { blocked: await relations.blockedEitherWay(request.userId, request.otherUserId) };
    },
    async getRelations(request) {
      return relations.relationsOf(request.userId);
    },
  };
}

/** Only the gateway, which authenticated the API caller itself. */
const GATEWAY = ['gateway'] as const;
/** The gateway (list filters) and the services that refuse or filter for a user: messaging, stories, blog. */
const ENFORCERS = ['gateway', 'messaging', 'stories', 'blog'] as const;

/**
 * Which issuer may call each RelationsService RPC (docs/api/foundation.md, "Internal calls"): the
 * caller's own writes and lists, only the gateway; the checks and sets, the services that
 * enforce blocks and mutes.
 */
export const RELATIONS_ISSUERS: IssuerTable<typeof RelationsService> = {
  blockUser: GATEWAY,
  unblockUser: GATEWAY,
  listBlocks: GATEWAY,
  muteTarget: GATEWAY,
  unmuteTarget: GATEWAY,
  listMutes: GATEWAY,
  checkBlock: ENFORCERS,
  getRelations: ENFORCERS,
};

function toProtoBlock(block: Block): ProtoBlock {
  return create(BlockSchema, { blockerId: block.blockerId, blockedId: block.blockedId, dateCreated: timestampFromDate(block.dateCreated) });
}

function toProtoMute(mute: Mute): ProtoMute {
  return create(MuteSchema, {
    id: mute.id,
    muterId: mute.muterId,
    ...('authorId' in mute.target ? { authorId: mute.target.authorId } : { tagId: mute.target.tagId }),
    dateCreated: timestampFromDate(mute.dateCreated),
  });
}
