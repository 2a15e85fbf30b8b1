import type { DescMethodUnary, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import type { RelationsService } from '@inkwell/proto/users';
import type { Rpc, RpcOptions } from '../routing/route-rpc.js';

/** A list request as a route builds it, with whether the caller asked for `filter[hide_blocked]=true`. */
export type HidingRequest<Q> = Q & { readonly hideBlocked?: boolean | undefined };

/** The authors and tags whose content a list leaves out for the caller. */
export interface HiddenContent {
  readonly authorIds: string[];
  readonly tagIds: string[];
}

/** Which of the caller's relations a list applies: mutes always (GET /stories), blocks on `filter[hide_blocked]=true`. */
export interface HidingRules {
  readonly mutes: boolean;
}

const NOTHING_HIDDEN: HiddenContent = { authorIds: [], tagIds: [] };

/**
 * What `caller` hides from a list (docs/api/safety.md): the authors and tags they mute (with
 * `mutes`) and the users they block (with `blocks`), asked of the users service at the moment of
 * the request (one call, only for a signed-in caller and only when something applies), so that a
 * block or mute counts at once. The ids go into the list request itself, so that an answer cached
 * by its request (GET /stories) is shared only by callers who hide the same things.
 */
export async function hiddenContentOf(relations: GrpcClient<typeof RelationsService>, caller: CallerContext, { mutes, blocks }: { mutes: boolean; blocks: boolean }): Promise<HiddenContent> {
  if (caller.userId === undefined || (!mutes && !blocks)) return NOTHING_HIDDEN;
  const found = await relations.getRelations({ userId: caller.userId }, { caller });
  return { authorIds: [...(mutes ? found.mutedAuthorIds : []), ...(blocks ? found.blockedUserIds : [])], tagIds: mutes ? found.mutedTagIds : [] };
}

/**
 * The call of list RPC `method` with what the caller hides: `call` gets the request without
 * `hideBlocked` and the hidden authors and tags, and puts them where its request takes them.
 */
export function hidingRpc<M extends DescMethodUnary>(
  method: M,
  relations: GrpcClient<typeof RelationsService>,
  rules: HidingRules,
  call: (request: MessageInitShape<M['input']>, hidden: HiddenContent, options: RpcOptions) => Promise<MessageShape<M['output']>>,
): Rpc<HidingRequest<MessageInitShape<M['input']>>, MessageShape<M['output']>> {
  const run = async ({ hideBlocked, ...request }: HidingRequest<MessageInitShape<M['input']>>, options: RpcOptions) =>
    call(request as MessageInitShape<M['input']>, await hiddenContentOf(relations, options.caller, { mutes: rules.mutes, blocks: hideBlocked === true }), options);
  return Object.assign(run, { method });
}
