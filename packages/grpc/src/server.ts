import { setTimeout as wait } from 'node:timers/promises';
import type { DescMethod, DescService, Message, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { Validator } from '@bufbuild/protovalidate';
import { Metadata, Server, ServerCredentials, status, type ChannelOptions, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { AppError, ErrorCode, isAppError } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { Health, type HealthCheckRequest } from '@inkwell/proto/health';
import { ASSERTION_METADATA_KEY, type AssertionVerifier } from './assertion.js';
import type { CallerContext } from './caller-context.js';
import { compileContract, createRequestValidator, type MethodContract } from './contract.js';
import { createServiceDefinition, encodeMessage, methodPath, unaryMethods, type UnaryMethodName } from './definition.js';
import { toGrpcStatus } from './errors.js';
import { checkHealth, createWatchHandler, HealthStatus } from './health.js';
import { grpcMetricsInterceptor, type MetricsRegistry } from './metrics.js';
import { REQUEST_ID_METADATA_KEY, requestIdFrom } from './request-id.js';
import { serverCredentials, type GrpcTls } from './tls.js';

/** What a handler knows about its call besides the request. */
export interface HandlerContext {
  /** The API caller, read from the call's verified assertion (docs/api/foundation.md, "Internal calls"). */
  caller: CallerContext;
  /** The process that signed the call (`gateway`, `bookshelves`, …); empty for health checks, which carry no assertion. */
  issuer: string;
  /** All incoming metadata, for anything beyond the caller; none of it is trusted for identity. */
  metadata: Metadata;
  /** When the client stops waiting; undefined when it set no deadline. */
  deadline?: Date;
  /**
   * Aborts when the client cancels or the deadline passes; its reason is an AppError
   * (CANCELLED or DEADLINE_EXCEEDED), so `signal.throwIfAborted()` ends the handler cleanly.
   */
  signal: AbortSignal;
  /** Adds a response header, sent together with the response or the error. */
  setResponseHeader(key: string, value: string): void;
  /** Logger bound to this call's method and request id. */
  logger: Logger;
}

/**
 * Implementation of every unary method of S, keyed by the method's localName (e.g. `getUser`).
 * A handler gets the decoded request and returns a response message or a plain init object;
 * it throws AppError for expected failures (anything else becomes INTERNAL).
 */
export type ServiceImpl<S extends DescService> = {
  [K in UnaryMethodName<S>]: (
    request: MessageShape<S['method'][K]['input']>,
    ctx: HandlerContext,
  ) => Promise<MessageInitShape<S['method'][K]['output']>>;
};

/**
 * Which issuers may call each method of S (docs/api/foundation.md, "Internal calls"): a complete
 * table, so a new RPC cannot be added without deciding who may call it. A verified call from an
 * issuer not listed is PERMISSION_DENIED. Each service keeps its table beside its handlers
 * (`src/transport/issuers.policy.ts`).
 */
export type IssuerTable<S extends DescService> = { readonly [K in UnaryMethodName<S>]: readonly string[] };

/**
 * Authorization-only checks of the methods of S whose docs put "who may write" before the body
 * (docs/api/foundation.md, "One contract"): existence, ownership or authorship, visibility. The
 * server runs a method's preflight only when its request breaks its rules, after access: a
 * refusal it throws is the answer, else the violations are. A preflight reads and never writes;
 * valid requests never run it (the handler makes its own full checks). An INVALID_ARGUMENT it
 * throws (an id it cannot parse) yields to the violations, which list every broken rule.
 */
export type PreflightTable<S extends DescService> = {
  readonly [K in UnaryMethodName<S>]?: (request: MessageShape<S['method'][K]['input']>, ctx: HandlerContext) => Promise<void>;
};

/** Options of GrpcServer.add. */
export interface AddServiceOptions<S extends DescService> {
  /** Issuers allowed per method (required: no service is open to every trusted issuer by default). */
  issuers: IssuerTable<S>;
  /** The methods whose authorization answers before the violations of their request. */
  preflight?: PreflightTable<S>;
}

/** Options of a GrpcServer. */
export interface GrpcServerOptions {
  logger: Logger;
  /**
   * Verifies the signed caller assertion of every call (except grpc.health.v1): a call without a
   * valid one is UNAUTHENTICATED and never reaches its handler.
   */
  verifier: AssertionVerifier;
  /** Extra grpc-js server options, merged over the defaults (keepalive). */
  serverOptions?: ChannelOptions;
  /** Where to record the RED metrics of every call (`grpcMetricsInterceptor`); none when absent. */
  metrics?: MetricsRegistry | undefined;
}

/** Options of GrpcServer.listen. */
export interface ListenOptions {
  /** TLS with client certificates (docs/api/foundation.md, "Internal calls"); plaintext when absent. */
  tls?: GrpcTls | undefined;
  /**
   * Also serve `grpc.health.v1.Health`, and nothing else, in plaintext on this port of the same
   * host (GRPC_HEALTH_PORT): for probes that cannot speak TLS, such as the kubelet's gRPC probe.
   * 0 or absent: no such port.
   */
  healthPort?: number | undefined;
}

type UnaryFn = (request: unknown, ctx: HandlerContext) => Promise<unknown>;

type PreflightFn = (request: unknown, ctx: HandlerContext) => Promise<void>;

/**
 * How a method's calls are authenticated and checked: not at all (health), or by assertion from
 * one of the issuers listed, then against the method's contract (access, then request rules,
 * with the method's preflight, if any, before a violation is answered).
 */
type Authentication = { kind: 'none' } | { kind: 'assertion'; issuers: readonly string[]; contract: MethodContract; preflight: PreflightFn | undefined };

/**
 * Server keepalive: notice dead peers of long-lived calls (Health/Watch) within about a minute.
 * Connections are closed gracefully after 5 minutes (calls in flight get 30 s more), so clients
 * resolve the service's name again and spread their calls over pods started since.
 */
const DEFAULT_SERVER_OPTIONS: ChannelOptions = {
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.max_connection_age_ms': 5 * 60_000,
  'grpc.max_connection_age_grace_ms': 30_000,
};

/** Lets a deadline that grpc-js noticed a hair before our own timer still count as a deadline. */
const DEADLINE_TOLERANCE_MS = 20;

/**
 * A grpc-js server that serves protobuf-es service descriptors with typed handlers, maps
 * AppErrors to gRPC statuses, logs one line per call, and always serves `grpc.health.v1.Health`.
 */
export class GrpcServer {
  /** Serving status per service; `add` marks a service SERVING, `shutdown` marks all NOT_SERVING. */
  readonly health = new HealthStatus();
  readonly #server: Server;
  readonly #logger: Logger;
  readonly #verifier: AssertionVerifier;
  /** Validates every request against its buf.validate rules; compiles each message's rules once. */
  readonly #validator: Validator = createRequestValidator();
  readonly #healthService: { definition: ServiceDefinition; handlers: UntypedServiceImplementation };
  /** The plaintext health-only server of `listen({ healthPort })`, when one runs. */
  #healthServer: Server | undefined;
  /** Contracts whose request rules have not been compiled yet ({@link GrpcServer.listen}). */
  readonly #unprepared: MethodContract[] = [];

  constructor(options: GrpcServerOptions) {
    this.#logger = options.logger;
    this.#verifier = options.verifier;
    this.#server = new Server({
      ...DEFAULT_SERVER_OPTIONS,
      ...options.serverOptions,
      ...(options.metrics === undefined ? {} : { interceptors: [grpcMetricsInterceptor(options.metrics)] }),
    });
    const health = this.health;
    const check = Health.method.check;
    this.#healthService = {
      definition: createServiceDefinition(Health, [check, Health.method.watch]),
      handlers: {
        [check.localName]: this.#unaryHandler(check, { kind: 'none' }, async (request) => checkHealth(health, request as HealthCheckRequest)),
        [Health.method.watch.localName]: createWatchHandler(health, this.#logger),
      },
    };
    this.#server.addService(this.#healthService.definition, this.#healthService.handlers);
  }

  /**
   * Serves every unary method of `service` with `impl` and marks the service SERVING in health.
   * Every call must carry a valid assertion from an issuer `options.issuers` lists for its method,
   * and pass the method's contract (docs/api/foundation.md, "One contract"): its
   * `(inkwell.api.v1.access)` option, then the buf.validate rules of its request (a request
   * that breaks them first meets the method's `options.preflight`, when it has one).
   * Throws when a handler or an issuer table entry is missing at runtime, a preflight names no
   * method of the service, or the service was already added. The requests' rules compile once
   * the server listens ({@link GrpcServer.listen}).
   */
  add<S extends DescService>(service: S, impl: ServiceImpl<S>, options: AddServiceOptions<S>): this {
    const table = options.issuers as Record<string, readonly string[] | undefined>;
    const preflights = (options.preflight ?? {}) as Record<string, PreflightFn | undefined>;
    const methods = unaryMethods(service);
    const unknown = Object.keys(preflights).filter((name) => !methods.some((method) => method.localName === name));
    if (unknown.length > 0) throw new Error(`Preflight for no method of ${service.typeName}: ${unknown.join(', ')}`);
    const handlers: UntypedServiceImplementation = {};
    const target = impl as unknown as Record<string, UnaryFn | undefined>;
    for (const method of methods) {
      const fn = target[method.localName];
      if (typeof fn !== 'function') throw new Error(`No handler for ${service.typeName}.${method.name} (${method.localName})`);
      const issuers = table[method.localName];
      if (issuers === undefined) throw new Error(`No issuers declared for ${service.typeName}.${method.name} (${method.localName})`);
      const contract = compileContract(method, this.#validator);
      this.#unprepared.push(contract);
      const preflight = preflights[method.localName];
      handlers[method.localName] = this.#unaryHandler(method, { kind: 'assertion', issuers, contract, preflight }, (request, ctx) => fn.call(impl, request, ctx));
    }
    this.#server.addService(createServiceDefinition(service, methods), handlers);
    this.health.setServing(service.typeName, true);
    return this;
  }

  /**
   * Binds `address` (e.g. `0.0.0.0:50051`, or `127.0.0.1:0` for a free port), over TLS with
   * client certificates when `options.tls` is given, and returns the bound port; with
   * `options.healthPort`, also serves the health service alone in plaintext on that port. Then
   * compiles the rules of every request in the background, one method per turn of the event loop:
   * a (re)started service answers without waiting for them, and a call that comes first compiles
   * its own (docs/api/foundation.md, "One contract").
   */
  async listen(address: string, options: ListenOptions = {}): Promise<number> {
    const port = await bind(this.#server, address, serverCredentials(options.tls));
    this.#logger.info({ address, port, tls: options.tls !== undefined }, 'grpc server listening');
    this.#prepareContracts();
    if (options.healthPort !== undefined && options.healthPort !== 0) {
      const healthServer = new Server(DEFAULT_SERVER_OPTIONS);
      healthServer.addService(this.#healthService.definition, this.#healthService.handlers);
      const healthAddress = `${address.slice(0, address.lastIndexOf(':'))}:${options.healthPort}`;
      this.#healthServer = healthServer;
      const bound = await bind(healthServer, healthAddress, ServerCredentials.createInsecure());
      this.#logger.info({ address: healthAddress, port: bound }, 'grpc health port listening (plaintext, health only)');
    }
    return port;
  }

  /**
   * Reports NOT_SERVING, keeps serving for `notServingFirstMs` (default 0), so that callers whose
   * health checks see NOT_SERVING stop sending before the server goes away, then stops accepting
   * calls, waits up to `graceMs` (default 10 s) for calls in flight, then cancels whatever is left
   * (their handlers see `ctx.signal` abort).
   */
  async shutdown(graceMs = 10_000, notServingFirstMs = 0): Promise<void> {
    this.health.shutdown();
    if (notServingFirstMs > 0) await wait(notServingFirstMs);
    await Promise.all([this.#server, this.#healthServer].filter((server) => server !== undefined).map((server) => drain(server, graceMs)));
  }

  /** Compiles the pending contracts' rules, one per macrotask, without keeping the process alive. */
  #prepareContracts(): void {
    const next = (): void => {
      const contract = this.#unprepared.shift();
      if (contract === undefined) return;
      try {
        contract.prepare();
      } catch (error) {
        this.#logger.error({ err: error }, 'request rules do not compile; calls of the method will fail');
      }
      setImmediate(next).unref();
    };
    setImmediate(next).unref();
  }

  #unaryHandler(method: DescMethod, authentication: Authentication, fn: UnaryFn): (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void {
    const path = methodPath(method);
    return (call, callback) => {
      this.#runUnary(path, method, authentication, fn, call, callback).catch((error: unknown) => {
        // Only reached when our own bookkeeping fails; never let it become an unhandled rejection.
        this.#logger.error({ method: path, err: error }, 'grpc call crashed');
        callback({ code: status.INTERNAL, details: 'internal error' });
      });
    };
  }

  /**
   * The verified issuer and caller of a call, or the AppError to answer with: UNAUTHENTICATED
   * without a valid assertion, PERMISSION_DENIED for an issuer the method does not allow.
   */
  #authenticate(path: string, authentication: Authentication, metadata: Metadata): { issuer: string; caller: CallerContext } | AppError {
    const sent = metadata.get(REQUEST_ID_METADATA_KEY);
    const requestId = requestIdFrom(sent.length === 1 ? String(sent[0]) : undefined);
    if (authentication.kind === 'none') return { issuer: '', caller: { requestId, scopes: [] } };
    const values = metadata.get(ASSERTION_METADATA_KEY);
    // Several values are never sent by our client: joined, they fail as malformed.
    const token = values.length === 0 ? undefined : values.map(String).join(',');
    try {
      const verified = this.#verifier.verify(token, path);
      if (!authentication.issuers.includes(verified.issuer)) {
        return new AppError(ErrorCode.PERMISSION_DENIED, `Issuer "${verified.issuer}" may not call ${path}.`);
      }
      return { issuer: verified.issuer, caller: { ...verified.caller, requestId } };
    } catch (error) {
      if (isAppError(error)) return error;
      throw error;
    }
  }

  async #runUnary(path: string, method: DescMethod, authentication: Authentication, fn: UnaryFn, call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): Promise<void> {
    const started = performance.now();
    const identity = this.#authenticate(path, authentication, call.metadata);
    if (identity instanceof AppError) {
      const refused = toGrpcStatus(identity);
      callback({ code: refused.code, details: refused.details, metadata: refused.metadata });
      this.#logger.warn({ method: path, code: identity.code, reason: identity.message }, 'grpc call refused');
      return;
    }
    const { caller, issuer } = identity;
    const logger = this.#logger.child({ method: path, requestId: caller.requestId, issuer });
    const deadline = toDate(call.getDeadline());
    const controller = new AbortController();
    const abort = (code: ErrorCode): void => {
      if (controller.signal.aborted) return;
      const message = code === ErrorCode.DEADLINE_EXCEEDED ? 'The deadline of the call passed.' : 'The client cancelled the call.';
      controller.abort(new AppError(code, message));
    };
    const timer = deadline === undefined ? undefined : setTimeout(() => abort(ErrorCode.DEADLINE_EXCEEDED), Math.max(0, deadline.getTime() - Date.now()));
    // grpc-js reports every closed stream as cancelled, also after a normal answer: only a
    // cancellation while the handler still runs is one (and worth an AppError with its stack).
    let settled = false;
    call.on('cancelled', () => {
      if (settled) return;
      const late = deadline !== undefined && Date.now() >= deadline.getTime() - DEADLINE_TOLERANCE_MS;
      abort(late ? ErrorCode.DEADLINE_EXCEEDED : ErrorCode.CANCELLED);
    });
    const responseHeaders = new Metadata();
    let hasResponseHeaders = false;
    const ctx: HandlerContext = {
      caller,
      issuer,
      metadata: call.metadata,
      signal: controller.signal,
      setResponseHeader(key, value) {
        responseHeaders.set(key, value);
        hasResponseHeaders = true;
      },
      logger,
    };
    if (deadline !== undefined) ctx.deadline = deadline;

    let outcome: { bytes: Uint8Array } | { error: unknown };
    try {
      // The contract refuses like a handler would: the same answer, log line and metrics.
      const refused = authentication.kind === 'assertion' ? await contractRefusal(authentication, call.request as Message, ctx) : undefined;
      if (refused !== undefined) throw refused;
      const response = await fn(call.request, ctx);
      outcome = { bytes: encodeMessage(method.output, response) };
    } catch (error) {
      outcome = { error };
    } finally {
      settled = true;
      clearTimeout(timer);
    }
    const durationMs = Math.round((performance.now() - started) * 10) / 10;

    if (controller.signal.aborted) {
      // The client is gone (or grpc-js already sent DEADLINE_EXCEEDED): nothing left to send.
      const reason: unknown = controller.signal.reason;
      const code = isAppError(reason) ? reason.code : ErrorCode.CANCELLED;
      // Usually the handler's error is just the abort surfacing; keep it in the line anyway.
      logger.warn({ code, durationMs, ...('error' in outcome ? { err: outcome.error } : {}) }, 'grpc call ended early');
      return;
    }
    if (hasResponseHeaders) call.sendMetadata(responseHeaders);
    if ('bytes' in outcome) {
      callback(null, outcome.bytes);
      logger.debug({ code: 'OK', durationMs }, 'grpc call');
      return;
    }
    const grpcStatus = toGrpcStatus(outcome.error);
    callback({ code: grpcStatus.code, details: grpcStatus.details, metadata: grpcStatus.metadata });
    const code = status[grpcStatus.code];
    if (grpcStatus.internal || grpcStatus.code === status.INTERNAL) {
      logger.error({ code, durationMs, err: outcome.error }, 'grpc call failed');
    } else if (isAppError(outcome.error) && (REFUSALS.has(outcome.error.code) || outcome.error.expected)) {
      // The answer to the caller's own request (a 4xx at the edge), or a state the service
      // expects and leaves by itself (AppError.expected): no fault here, no stack trace.
      logger.info({ code, durationMs, reason: outcome.error.message }, 'grpc call refused');
    } else {
      logger.warn({ code, durationMs, err: outcome.error }, 'grpc call failed');
    }
  }
}

/**
 * The refusal of a call by its method's contract, or undefined when the handler may run: access,
 * then the request's rules; a request that breaks them meets the preflight first, whose refusal
 * (other than INVALID_ARGUMENT) wins. Valid requests never run the preflight.
 */
function contractRefusal(authentication: Extract<Authentication, { kind: 'assertion' }>, request: Message, ctx: HandlerContext): AppError | undefined | Promise<AppError | undefined> {
  const { contract, preflight } = authentication;
  const denied = contract.refuseCaller(ctx.caller);
  if (denied !== undefined) return denied;
  const violations = contract.refuseRequest(request);
  if (violations === undefined || preflight === undefined) return violations;
  return preflight(request, ctx).then(
    () => violations,
    (error: unknown) => {
      if (isAppError(error) && error.code === ErrorCode.INVALID_ARGUMENT) return violations;
      throw error;
    },
  );
}

/**
 * Error codes that refuse the caller's request (what the gateway answers with a 4xx): logged at
 * info without a stack. UNAVAILABLE, DEADLINE_EXCEEDED and the like remain warnings.
 */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.INVALID_ARGUMENT,
  ErrorCode.NOT_FOUND,
  ErrorCode.ALREADY_EXISTS,
  ErrorCode.PERMISSION_DENIED,
  ErrorCode.UNAUTHENTICATED,
  ErrorCode.FAILED_PRECONDITION,
  ErrorCode.ABORTED,
  ErrorCode.OUT_OF_RANGE,
  ErrorCode.RESOURCE_EXHAUSTED,
]);

/** Binds `server` to `address` with `credentials`; resolves with the bound port. */
function bind(server: Server, address: string, credentials: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (error, port) => (error ? reject(error) : resolve(port)));
  });
}

/** Stops `server` accepting calls, waits up to `graceMs` for calls in flight, then cancels the rest. */
function drain(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Creates a GrpcServer; add services, then `listen`. */
export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  return new GrpcServer(options);
}

function toDate(deadline: Date | number): Date | undefined {
  if (deadline instanceof Date) return deadline;
  return Number.isFinite(deadline) ? new Date(deadline) : undefined;
}
