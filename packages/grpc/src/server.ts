import type { DescMethod, DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { Metadata, Server, ServerCredentials, status, type ChannelOptions, type ServerUnaryCall, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { AppError, ErrorCode, isAppError } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { Health, type HealthCheckRequest } from '@inkwell/proto/health';
import { callerFromMetadata, type CallerContext } from './caller-context.js';
import { createServiceDefinition, encodeMessage, methodPath, unaryMethods, type UnaryMethodName } from './definition.js';
import { toGrpcStatus } from './errors.js';
import { checkHealth, createWatchHandler, HealthStatus } from './health.js';

/** What a handler knows about its call besides the request. */
export interface HandlerContext {
  /** Who is calling, read from the metadata the gateway set. */
  caller: CallerContext;
  /** All incoming metadata, for anything beyond the caller. */
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

/** Options of a GrpcServer. */
export interface GrpcServerOptions {
  logger: Logger;
  /** Extra grpc-js server options, merged over the defaults (keepalive). */
  serverOptions?: ChannelOptions;
}

type UnaryFn = (request: unknown, ctx: HandlerContext) => Promise<unknown>;

/** Server keepalive: notice dead peers of long-lived calls (Health/Watch) within about a minute. */
const DEFAULT_SERVER_OPTIONS: ChannelOptions = {
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_timeout_ms': 20_000,
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

  constructor(options: GrpcServerOptions) {
    this.#logger = options.logger;
    this.#server = new Server({ ...DEFAULT_SERVER_OPTIONS, ...options.serverOptions });
    const health = this.health;
    const check = Health.method.check;
    this.#server.addService(createServiceDefinition(Health, [check, Health.method.watch]), {
      [check.localName]: this.#unaryHandler(check, async (request) => checkHealth(health, request as HealthCheckRequest)),
      [Health.method.watch.localName]: createWatchHandler(health, this.#logger),
    });
  }

  /**
   * Serves every unary method of `service` with `impl` and marks the service SERVING in health.
   * Throws when a handler is missing at runtime or the service was already added.
   */
  add<S extends DescService>(service: S, impl: ServiceImpl<S>): this {
    const methods = unaryMethods(service);
    const handlers: UntypedServiceImplementation = {};
    const target = impl as unknown as Record<string, UnaryFn | undefined>;
    for (const method of methods) {
      const fn = target[method.localName];
      if (typeof fn !== 'function') throw new Error(`No handler for ${service.typeName}.${method.name} (${method.localName})`);
      handlers[method.localName] = this.#unaryHandler(method, (request, ctx) => fn.call(impl, request, ctx));
    }
    this.#server.addService(createServiceDefinition(service, methods), handlers);
    this.health.setServing(service.typeName, true);
    return this;
  }

  /** Binds `address` (e.g. `0.0.0.0:50051`, or `127.0.0.1:0` for a free port) without TLS and returns the bound port. */
  listen(address: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.bindAsync(address, ServerCredentials.createInsecure(), (error, port) => {
        if (error) {
          reject(error);
          return;
        }
        this.#logger.info({ address, port }, 'grpc server listening');
        resolve(port);
      });
    });
  }

  /**
   * Reports NOT_SERVING, stops accepting calls, waits up to `graceMs` (default 10 s) for calls in
   * flight, then cancels whatever is left (their handlers see `ctx.signal` abort).
   */
  async shutdown(graceMs = 10_000): Promise<void> {
    this.health.shutdown();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, graceMs);
      this.#server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #unaryHandler(method: DescMethod, fn: UnaryFn): (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void {
    const path = methodPath(method);
    return (call, callback) => {
      this.#runUnary(path, method, fn, call, callback).catch((error: unknown) => {
        // Only reached when our own bookkeeping fails; never let it become an unhandled rejection.
        this.#logger.error({ method: path, err: error }, 'grpc call crashed');
        callback({ code: status.INTERNAL, details: 'internal error' });
      });
    };
  }

  async #runUnary(path: string, method: DescMethod, fn: UnaryFn, call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): Promise<void> {
    const started = performance.now();
    const caller = callerFromMetadata(call.metadata);
    const logger = this.#logger.child({ method: path, requestId: caller.requestId });
    const deadline = toDate(call.getDeadline());
    const controller = new AbortController();
    const abort = (code: ErrorCode): void => {
      if (controller.signal.aborted) return;
      const message = code === ErrorCode.DEADLINE_EXCEEDED ? 'The deadline of the call passed.' : 'The client cancelled the call.';
      controller.abort(new AppError(code, message));
    };
    const timer = deadline === undefined ? undefined : setTimeout(() => abort(ErrorCode.DEADLINE_EXCEEDED), Math.max(0, deadline.getTime() - Date.now()));
    call.on('cancelled', () => {
      const late = deadline !== undefined && Date.now() >= deadline.getTime() - DEADLINE_TOLERANCE_MS;
      abort(late ? ErrorCode.DEADLINE_EXCEEDED : ErrorCode.CANCELLED);
    });
    const responseHeaders = new Metadata();
    let hasResponseHeaders = false;
    const ctx: HandlerContext = {
      caller,
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
      const response = await fn(call.request, ctx);
      outcome = { bytes: encodeMessage(method.output, response) };
    } catch (error) {
      outcome = { error };
    } finally {
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
    } else {
      logger.warn({ code, durationMs, err: outcome.error }, 'grpc call failed');
    }
  }
}

/** Creates a GrpcServer; add services, then `listen`. */
export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  return new GrpcServer(options);
}

function toDate(deadline: Date | number): Date | undefined {
  if (deadline instanceof Date) return deadline;
  return Number.isFinite(deadline) ? new Date(deadline) : undefined;
}
