import { randomUUID } from 'node:crypto';
import type { DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { Client, Metadata, type ChannelOptions, type MethodDefinition, type ServiceError } from '@grpc/grpc-js';
import { AppError, ErrorCode } from '@inkwell/errors';
import { Health, HealthCheckResponse_ServingStatus, type HealthCheckResponse } from '@inkwell/proto/health';
import { ASSERTION_METADATA_KEY, type AssertionSigner } from './assertion.js';
import type { CallerContext } from './caller-context.js';
import { createMethodDefinition, unaryMethods, type UnaryMethodName } from './definition.js';
import { grpcErrorToAppError } from './errors.js';
import { REQUEST_ID_METADATA_KEY } from './request-id.js';
import { channelCredentials, type GrpcTls } from './tls.js';

/** Per-call options of a GrpcClient method. */
export interface CallOptions {
  /**
   * The API caller this call acts for; the client's signer puts it in the call's signed
   * assertion. Absent: the process calls as itself (no user, no scopes).
   */
  caller?: CallerContext;
  /** Milliseconds until the call fails with DEADLINE_EXCEEDED; default: the client's defaultDeadlineMs. */
  deadlineMs?: number;
  /** Extra request metadata; it is copied, never modified. Servers trust none of it for identity. */
  metadata?: Metadata;
  /** Called with the response headers when they arrive (before the promise settles). */
  onResponseHeaders?: (metadata: Metadata) => void;
  /** Cancels the call when aborted; the promise then rejects with CANCELLED. */
  signal?: AbortSignal;
}

/** Options of createGrpcClient. */
export interface GrpcClientOptions {
  /** Deadline of every call that sets none (default 5000 ms). */
  defaultDeadlineMs?: number;
  /** grpc-js channel options, merged over the defaults (keepalive, reconnect backoff). */
  channelOptions?: ChannelOptions;
  /**
   * Signs every call of the service's methods with this process's key (docs/api/foundation.md,
   * "Internal calls"). Without one, calls carry no assertion and every server refuses them
   * (UNAUTHENTICATED); only health checks work, which need none.
   */
  signer?: AssertionSigner;
  /**
   * The service name the assertions are addressed to; default: the `<domain>` of the service's
   * proto package `inkwell.<domain>.v1` (`users` for inkwell.users.v1.UsersService).
   */
  audience?: string;
  /**
   * TLS with this process's client certificate (docs/api/foundation.md, "Internal calls"): the
   * server's certificate must chain to `tls.ca` and name the host of `address`. Plaintext when absent.
   */
  tls?: GrpcTls | undefined;
}

/**
 * Promise client: one method per unary RPC of S, with the same localName (`getUser`). Requests
 * may be plain init objects; failures reject with AppError. `close()` closes the channel;
 * `checkHealth(service)` asks the server's grpc.health.v1.Health (default: the whole server).
 */
export type GrpcClient<S extends DescService> = {
  [K in UnaryMethodName<S>]: (
    request: MessageInitShape<S['method'][K]['input']>,
    options?: CallOptions,
  ) => Promise<MessageShape<S['method'][K]['output']>>;
} & {
  /** Closes the channel; calls made afterwards fail. */
  close(): void;
  /** True when the server reports `service` (default `""`, the server itself) SERVING; false on any other answer or failure. */
  checkHealth(service?: string, deadlineMs?: number): Promise<boolean>;
};

/**
 * Client keepalive: pings an idle connection every 30 s so a silently dropped connection is
 * noticed before a call needs it (our servers do not police pings). Reconnect backoff is capped
 * at 1 s so a restarted service is used again within a second of its return (grpc-js defaults
 * to up to 120 s; a 5 s cap added up to 5 s to every restart): an attempt a second against an
 * address that refuses is nothing.
 */
const DEFAULT_CHANNEL_OPTIONS: ChannelOptions = {
  // Per-call balancing over every address the target resolves to (docs/api/foundation.md,
  // "Internal calls"): a Kubernetes headless Service resolves to every ready pod.
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  // Look the name up again at most every 10 s when a connection drops (default 30 s), and
  // whenever a server ends a connection for its age, so new pods are found quickly.
  'grpc.dns_min_time_between_resolutions_ms': 10_000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  // A restarted backend is used again within half a second of listening (docs/api/foundation.md,
  // "Readiness and backend outages"); two connection attempts a second while it is away cost nothing.
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 500,
};

const DEFAULT_DEADLINE_MS = 5_000;

/**
 * The grpc-js target of `address`: a plain `host:port` becomes `dns:///host:port`, so that every
 * address the name resolves to is used (and looked up again); a target that already names its
 * resolver (`dns:`, `ipv4:`, `ipv6:`, `unix:`) is kept as given, e.g.
 * `ipv4:127.0.0.1:5001,127.0.0.1:5002` for two local replicas.
 */
export function grpcTarget(address: string): string {
  return /^(dns|ipv4|ipv6|unix|unix-abstract):/.test(address) ? address : `dns:///${address}`;
}

/**
 * Creates a promise client for `service` at `address` (`host:port` or a grpc-js target, see
 * {@link grpcTarget}; TLS with `options.tls`) over a single channel, which grpc-js reuses for every call; create
 * one client per backend and keep it. Calls are balanced round robin over every address the name
 * resolves to (one connection each). Connecting is lazy: creating a client never fails because
 * the server is down.
 */
export function createGrpcClient<S extends DescService>(service: S, address: string, options: GrpcClientOptions = {}): GrpcClient<S> {
  const client = new Client(grpcTarget(address), channelCredentials(options.tls), { ...DEFAULT_CHANNEL_OPTIONS, ...options.channelOptions });
  const defaultDeadlineMs = options.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
  const healthCheck = createMethodDefinition(Health.method.check);
  const signer = options.signer;
  const audience = options.audience ?? defaultAudience(service);
  const result: Record<string, unknown> = {
    close: () => client.close(),
    checkHealth: async (serviceName = '', deadlineMs = defaultDeadlineMs): Promise<boolean> => {
      try {
        const response = (await unaryCall(client, healthCheck, { service: serviceName }, { deadlineMs }, defaultDeadlineMs, undefined)) as HealthCheckResponse;
        return response.status === HealthCheckResponse_ServingStatus.SERVING;
      } catch {
        return false;
      }
    },
  };
  for (const method of unaryMethods(service)) {
    if (method.localName in result) throw new Error(`${service.typeName}.${method.name} clashes with GrpcClient.${method.localName}`);
    const definition = createMethodDefinition(method);
    const sign = signer && ((caller?: CallerContext) => signer.sign(audience, definition.path, caller));
    result[method.localName] = (request: unknown, callOptions: CallOptions = {}) => unaryCall(client, definition, request, callOptions, defaultDeadlineMs, sign);
  }
  return result as GrpcClient<S>;
}

/** `users` for `inkwell.users.v1.UsersService`; the full type name for a service outside that pattern. */
function defaultAudience(service: DescService): string {
  return /^inkwell\.([a-z0-9_]+)\.v\d+\./.exec(service.typeName)?.[1] ?? service.typeName;
}

function unaryCall(
  client: Client,
  definition: MethodDefinition<unknown, unknown>,
  request: unknown,
  options: CallOptions,
  defaultDeadlineMs: number,
  sign: ((caller?: CallerContext) => string) | undefined,
): Promise<unknown> {
  const metadata = options.metadata?.clone() ?? new Metadata();
  if (sign) metadata.set(ASSERTION_METADATA_KEY, sign(options.caller));
  // The caller's request id, else one the metadata already has, else a new one (a process's own call).
  if (options.caller !== undefined) metadata.set(REQUEST_ID_METADATA_KEY, options.caller.requestId);
  else if (metadata.get(REQUEST_ID_METADATA_KEY).length === 0) metadata.set(REQUEST_ID_METADATA_KEY, randomUUID());
  const deadline = new Date(Date.now() + (options.deadlineMs ?? defaultDeadlineMs));
  const signal = options.signal;
  if (signal?.aborted) return Promise.reject(new AppError(ErrorCode.CANCELLED, 'The call was cancelled.'));

  return new Promise((resolve, reject) => {
    const call = client.makeUnaryRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      request,
      metadata,
      { deadline },
      (error: ServiceError | null, response?: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(grpcErrorToAppError(error));
        else resolve(response);
      },
    );
    const onAbort = (): void => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    const onResponseHeaders = options.onResponseHeaders;
    if (onResponseHeaders) call.on('metadata', onResponseHeaders);
  });
}
