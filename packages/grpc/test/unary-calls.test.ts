import { setTimeout as sleep } from 'node:timers/promises';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceError } from '@grpc/grpc-js';
import { AppError, ErrorCode, isAppError, type ErrorDetail } from '@inkwell/errors';
import { ProbeService } from '@inkwell/proto/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ASSERTION_METADATA_KEY, createGrpcClient, Metadata, status, type CallerContext, type GrpcClient, type HandlerContext, type ServiceImpl } from '../src/index.js';
import { closedPort, deferred, GATEWAY_KEY, rejection, signerOf, startTestServer, type TestServer } from './test-server.js';

let testServer: TestServer;
let users: GrpcClient<typeof ProbeService>;

beforeAll(async () => {
  testServer = await startTestServer();
  users = createGrpcClient(ProbeService, testServer.address, { signer: signerOf(GATEWAY_KEY) });
});

afterAll(async () => {
  users.close();
  await testServer.server.shutdown(1000);
});

afterEach(() => {
  testServer.lines.length = 0;
});

function grpcStatusOf(error: AppError): number {
  return (error.cause as ServiceError).code;
}

/** The codes a service answers to refuse a caller's request (a 4xx at the edge): logged at info. */
const REFUSED_CODES = new Set<string>(['INVALID_ARGUMENT', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'UNAUTHENTICATED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'RESOURCE_EXHAUSTED']);

describe('unary calls', () => {
  it('round-trips a request and a response, with plain init objects on both sides', async () => {
    const joined = new Date('2024-03-01T10:00:00Z');
    testServer.setGetUser(async (request) => ({
      user: { id: request.id, name: 'Twilight', bio: 'Reads a lot.', numStories: 3, dateJoined: timestampFromDate(joined) },
    }));

    const response = await users.getUser({ id: '9007199254740993' });

    expect(response.user?.id).toBe('9007199254740993');
    expect(response.user?.name).toBe('Twilight');
    expect(response.user?.numStories).toBe(3);
    expect(response.user?.email).toBeUndefined();
    expect(response.user?.dateJoined && timestampDate(response.user.dateJoined)).toEqual(joined);
  });

  it('passes the caller client → server and response headers server → client', async () => {
    let seen: HandlerContext | undefined;
    testServer.setGetUser(async (request, ctx) => {
      seen = ctx;
      ctx.setResponseHeader('x-cache', 'hit');
      return { user: { id: request.id } };
    });
    const caller: CallerContext = { requestId: 'req-abc', userId: '42', appId: '7', scopes: ['read_user', 'write_user'] };
    const extra = new Metadata();
    extra.set('x-custom', 'yes');
    const headers: Metadata[] = [];

    await users.getUser({ id: '1' }, { caller, metadata: extra, onResponseHeaders: (md) => headers.push(md) });

    expect(seen?.caller).toEqual(caller);
    expect(seen?.issuer).toBe('gateway');
    expect(seen?.metadata.get('x-custom')).toEqual(['yes']);
    expect(headers).toHaveLength(1);
    expect(headers[0]?.get('x-cache')).toEqual(['hit']);
    expect(extra.get(ASSERTION_METADATA_KEY)).toEqual([]);
  });

  it('gives the handler a fresh request id when the caller sent none, and logs one debug line per call', async () => {
    let requestId = '';
    testServer.setGetUser(async (request, ctx) => {
      requestId = ctx.caller.requestId;
      return { user: { id: request.id } };
    });

    await users.getUser({ id: '1' });

    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const callLines = testServer.lines.filter((line) => line.msg === 'grpc call');
    expect(callLines).toHaveLength(1);
    expect(callLines[0]?.level).toBe('debug');
    expect(callLines[0]?.fields).toMatchObject({ method: '/inkwell.testing.v1.ProbeService/GetUser', code: 'OK', requestId });
    expect(callLines[0]?.fields.durationMs).toEqual(expect.any(Number));
  });

  it.each(Object.values(ErrorCode))('delivers AppError %s as the gRPC status of that name, with message and details intact', async (code) => {
    const details: ErrorDetail[] = [
      { reason: 'validation_failed', pointer: '/data/attributes/name', detail: 'Der Name ist zu lang — 名前 🙂' },
      { reason: 'invalid_parameter', parameter: 'filter[x]' },
    ];
    testServer.setGetUser(async () => {
      throw new AppError(code, `It went wrong: ${code} (ünïcode)`, { details });
    });

    const error = await rejection(users.getUser({ id: '1' }, { caller: { requestId: `req-${code}`, scopes: [] } }));

    expect(grpcStatusOf(error)).toBe(status[code]);
    expect(error.code).toBe(code);
    expect(error.message).toBe(`It went wrong: ${code} (ünïcode)`);
    expect(error.details).toEqual(details);
    const refused = REFUSED_CODES.has(code);
    const line = testServer.lines.find((entry) => entry.msg === (refused ? 'grpc call refused' : 'grpc call failed'));
    expect(line?.level).toBe(code === ErrorCode.INTERNAL ? 'error' : refused ? 'info' : 'warn');
    expect(line?.fields).toMatchObject({ code, requestId: `req-${code}` });
    // A refusal is the caller's answer, not a fault: its line carries the reason, never a stack.
    if (refused) expect(line?.fields).toMatchObject({ reason: `It went wrong: ${code} (ünïcode)` });
    if (refused) expect(line?.fields.err).toBeUndefined();
  });

  it('sends a thrown non-AppError as INTERNAL "internal error" and logs the cause at error level', async () => {
    testServer.setGetUser(async () => {
      throw new TypeError('cannot read secret_column of undefined at db.internal:5432');
    });

    const error = await rejection(users.getUser({ id: '1' }));

    expect(grpcStatusOf(error)).toBe(status.INTERNAL);
    expect(error.code).toBe(ErrorCode.INTERNAL);
    expect(error.message).toBe('internal error');
    expect(error.details).toEqual([]);
    expect(JSON.stringify((error.cause as ServiceError).metadata.toJSON())).not.toContain('secret_column');
    const failure = testServer.lines.find((line) => line.msg === 'grpc call failed');
    expect(failure?.level).toBe('error');
    expect((failure?.fields.err as Error).message).toContain('secret_column');
  });

  it('logs an expected UNAVAILABLE (a state the service leaves by itself) as one info line without a stack', async () => {
    testServer.setGetUser(async () => {
      throw new AppError(ErrorCode.UNAVAILABLE, 'Story search is not ready yet.', { cause: new Error('index_not_found_exception'), expected: true });
    });

    const error = await rejection(users.getUser({ id: '1' }, { caller: { requestId: 'req-expected', scopes: [] } }));

    expect(error.code).toBe(ErrorCode.UNAVAILABLE);
    expect(error.message).toBe('Story search is not ready yet.');
    const lines = testServer.lines.filter((line) => line.fields.requestId === 'req-expected' && line.level !== 'debug');
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([{ level: 'info', msg: 'grpc call refused' }]);
    expect(lines[0]?.fields.err).toBeUndefined();
    expect(lines[0]?.fields).toMatchObject({ code: 'UNAVAILABLE', reason: 'Story search is not ready yet.' });
  });

  it('turns a response that cannot be encoded into INTERNAL', async () => {
    testServer.setGetUser(async () => ({ user: { id: 'not a number' } }));

    const error = await rejection(users.getUser({ id: '1' }));

    expect(error.code).toBe(ErrorCode.INTERNAL);
    expect(error.message).toBe('internal error');
  });
});

describe('deadlines and cancellation', () => {
  it('fails with DEADLINE_EXCEEDED when the handler is slower than the deadline, and aborts its signal', async () => {
    let ctxSeen: HandlerContext | undefined;
    const handlerDone = deferred<unknown>();
    testServer.setGetUser(async (request, ctx) => {
      ctxSeen = ctx;
      try {
        await sleep(2000, undefined, { signal: ctx.signal });
      } catch {
        handlerDone.resolve(ctx.signal.reason);
        ctx.signal.throwIfAborted();
      }
      return { user: { id: request.id } };
    });
    const started = Date.now();

    const error = await rejection(users.getUser({ id: '1' }, { deadlineMs: 200 }));

    expect(Date.now() - started).toBeLessThan(1500);
    expect(error.code).toBe(ErrorCode.DEADLINE_EXCEEDED);
    expect(grpcStatusOf(error)).toBe(status.DEADLINE_EXCEEDED);
    expect(error.message).toBe('The service did not answer in time.');
    const reason = await handlerDone.promise;
    expect(isAppError(reason) && reason.code).toBe(ErrorCode.DEADLINE_EXCEEDED);
    const deadlineIn = (ctxSeen?.deadline?.getTime() ?? 0) - started;
    expect(deadlineIn).toBeGreaterThan(100);
    expect(deadlineIn).toBeLessThan(400);
  });

  it('applies the default deadline of 5 s when the call sets none', async () => {
    let deadline: Date | undefined;
    testServer.setGetUser(async (request, ctx) => {
      deadline = ctx.deadline;
      return { user: { id: request.id } };
    });
    const started = Date.now();

    await users.getUser({ id: '1' });

    const deadlineIn = (deadline?.getTime() ?? 0) - started;
    expect(deadlineIn).toBeGreaterThan(4500);
    expect(deadlineIn).toBeLessThanOrEqual(5500);
  });

  it('cancels the call when the caller aborts: the client sees CANCELLED and the handler signal aborts', async () => {
    const handlerAborted = deferred<unknown>();
    const handlerStarted = deferred<void>();
    testServer.setGetUser(async (request, ctx) => {
      ctx.signal.addEventListener('abort', () => handlerAborted.resolve(ctx.signal.reason));
      handlerStarted.resolve();
      await sleep(2000);
      return { user: { id: request.id } };
    });
    const controller = new AbortController();

    const pending = rejection(users.getUser({ id: '1' }, { signal: controller.signal }));
    await handlerStarted.promise;
    controller.abort();
    const error = await pending;

    expect(error.code).toBe(ErrorCode.CANCELLED);
    const reason = await handlerAborted.promise;
    expect(isAppError(reason) && reason.code).toBe(ErrorCode.CANCELLED);
  });
});

describe('unreachable servers', () => {
  it('rejects with UNAVAILABLE when nothing listens on the port', async () => {
    const port = await closedPort();
    const client = createGrpcClient(ProbeService, `127.0.0.1:${port}`);
    try {
      const error = await rejection(client.getUser({ id: '1' }));

      expect(error.code).toBe(ErrorCode.UNAVAILABLE);
      expect(error.message).toBe('The service is unavailable.');
      expect(error.message).not.toContain(String(port));
      expect(await client.checkHealth()).toBe(false);
    } finally {
      client.close();
    }
  });
});

/** Compile-time checks (tsc runs over test/): wrong field names and types are rejected. */
export function typeChecks(client: GrpcClient<typeof ProbeService>): ServiceImpl<typeof ProbeService> {
  // @ts-expect-error unknown request field
  void client.getUser({ userId: '1' });
  // @ts-expect-error wrong field type
  void client.getUser({ id: 1 });
  // @ts-expect-error no such RPC
  void client.deleteUser;
  return {
    // @ts-expect-error unknown response field
    getUser: async () => ({ user: { nickname: 'x' } }),
  };
}
