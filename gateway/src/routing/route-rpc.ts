import { getOption, hasOption, type DescMethod, type DescMethodUnary, type DescService, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { isScope } from '@inkwell/auth-tokens';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import { access, Scope as ProtoScope, scopeName } from '@inkwell/proto/options';
import type { RouteDefinition } from './route.types.js';

/** The second argument of every RPC: who is calling, and when the client stopped waiting. */
export interface RpcOptions {
  readonly caller: CallerContext;
  readonly signal?: AbortSignal;
}

/**
 * The backend call of a route, named by the descriptor of the RPC it makes, so that the route
 * reads who may call it from the proto (see {@link routeAccess}). Build it with {@link rpcOf}.
 */
export interface Rpc<Q, R> {
  /** The RPC this call makes, e.g. `StoriesService.method.createComment`. */
  readonly method: DescMethodUnary;
  (request: Q, options: RpcOptions): Promise<R>;
}

/** The request and response types of calling `M` through a typed client. */
type RpcOfMethod<M extends DescMethodUnary> = Rpc<MessageInitShape<M['input']>, MessageShape<M['output']>>;

/**
 * The call of `method` through `client`, the typed client of the method's service (tsc refuses
 * a method of another service): `rpcOf(stories, StoriesService.method.createComment)` calls
 * `stories.createComment`. The client is touched only when the call is made, so that a route
 * table can be built without backends (the API document).
 */
export function rpcOf<S extends DescService, M extends DescMethodUnary & S['method'][keyof S['method']]>(client: GrpcClient<S>, method: M): RpcOfMethod<M> {
  const calls = client as unknown as Readonly<Record<string, RpcOfMethod<M>>>;
  return namedRpc(method, (request, options) => calls[method.localName]!(request, options));
}

/**
 * A call of `method` that does more than call it (e.g. asks another service in parallel), or a
 * stand-in for it in a test: `call` runs in its place, and `method` is what the route declares.
 */
export function namedRpc<M extends DescMethodUnary>(method: M, call: (request: MessageInitShape<M['input']>, options: RpcOptions) => Promise<MessageShape<M['output']>>): RpcOfMethod<M> {
  return Object.assign((request: MessageInitShape<M['input']>, options: RpcOptions) => call(request, options), { method });
}

/** Who may call a route: the `scope`, `requiresUser` and `firstParty` of its RouteDefinition. */
export type RouteAccess = Pick<RouteDefinition, 'scope' | 'requiresUser' | 'firstParty'>;

/**
 * The access of a route that calls `rpc`: the scope, signed-in user and first party its RPC declares with
 * `(inkwell.api.v1.access)` (docs/api/foundation.md, "One contract"), so that the gateway
 * refuses what the service would refuse before calling it. `declared` is what the route entry
 * adds where the RPC says nothing (a requirement of the edge alone); restating what the RPC
 * declares throws, since a rule stated twice drifts apart.
 */
export function routeAccess(rpc: { readonly method: DescMethod }, declared: RouteAccess = {}): RouteAccess {
  const { scope, user, firstParty } = hasOption(rpc.method, access) ? getOption(rpc.method, access) : { scope: ProtoScope.UNSPECIFIED, user: false, firstParty: false };
  const name = `${rpc.method.parent.typeName}.${rpc.method.name}`;
  if ((scope !== ProtoScope.UNSPECIFIED && declared.scope !== undefined) || (user && declared.requiresUser !== undefined)) {
    throw new Error(`A route restates the access that ${name} declares in its (inkwell.api.v1.access) option`);
  }
  const scopeOf = scope === ProtoScope.UNSPECIFIED ? declared.scope : wireScope(scope, name);
  const requiresUser = user || declared.requiresUser;
  return { ...(scopeOf === undefined ? {} : { scope: scopeOf }), ...(requiresUser === undefined ? {} : { requiresUser }), ...(firstParty ? { firstParty } : {}) };
}

/** The OAuth scope name of a proto scope (`write_stories`); throws for a value the scope list lacks. */
function wireScope(scope: ProtoScope, rpcName: string): NonNullable<RouteDefinition['scope']> {
  const wire = scopeName(scope);
  if (!isScope(wire)) throw new Error(`${rpcName} declares the unknown scope ${wire}`);
  return wire;
}
