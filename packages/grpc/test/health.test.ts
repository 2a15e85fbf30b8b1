import { Client, credentials, Metadata, type ClientReadableStream, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { ErrorCode, isAppError } from '@inkwell/errors';
import { Health, HealthCheckResponse_ServingStatus as ServingStatus, type HealthCheckResponse } from '@inkwell/proto/health';
import { ProbeService } from '@inkwell/proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcClient, createMethodDefinition, status, type GrpcClient } from '../src/index.js';
import { deferred, GATEWAY_KEY, signerOf, startTestServer, type TestServer } from './test-server.js';

let testServer: TestServer;
let health: GrpcClient<typeof Health>;
let users: GrpcClient<typeof ProbeService>;

beforeAll(async () => {
  testServer = await startTestServer();
  health = createGrpcClient(Health, testServer.address);
  users = createGrpcClient(ProbeService, testServer.address);
});

afterAll(async () => {
  health.close();
  users.close();
  await testServer.server.shutdown(1000);
});

/** Opens Health/Watch with a raw grpc-js client and records every status it streams. */
function watch(address: string, service: string) {
  const client = new Client(address, credentials.createInsecure());
  const definition = createMethodDefinition(Health.method.watch);
  const statuses: ServingStatus[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const ended = deferred<StatusObject>();
  const stream: ClientReadableStream<unknown> = client.makeServerStreamRequest(
    definition.path,
    definition.requestSerialize,
    definition.responseDeserialize,
    { service },
    new Metadata(),
    {},
  );
  stream.on('data', (message: HealthCheckResponse) => {
    statuses.push(message.status);
    for (const waiter of waiters.filter((w) => statuses.length >= w.count)) waiter.resolve();
  });
  stream.on('status', (grpcStatus: StatusObject) => ended.resolve(grpcStatus));
  stream.on('error', () => {});
  return {
    statuses,
    ended: ended.promise,
    /** Resolves once `count` statuses have arrived. */
    received(count: number): Promise<void> {
      if (statuses.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close(): void {
      stream.cancel();
      client.close();
    },
  };
}

describe('grpc.health.v1.Health', () => {
  it('reports the server and every added service SERVING', async () => {
    expect(await users.checkHealth()).toBe(true);
    expect(await users.checkHealth('inkwell.testing.v1.ProbeService')).toBe(true);
    expect((await health.check({ service: '' })).status).toBe(ServingStatus.SERVING);
  });

  it('reports NOT_SERVING after setServing(false) and SERVING again after setServing(true)', async () => {
    testServer.server.health.setServing(ProbeService.typeName, false);
    try {
      expect((await health.check({ service: ProbeService.typeName })).status).toBe(ServingStatus.NOT_SERVING);
      expect(await users.checkHealth(ProbeService.typeName)).toBe(false);
      expect(await users.checkHealth()).toBe(true);
    } finally {
      testServer.server.health.setServing(ProbeService.typeName, true);
    }
    expect(await users.checkHealth(ProbeService.typeName)).toBe(true);
  });

  it('answers NOT_FOUND for a service it does not know', async () => {
    const error: unknown = await health.check({ service: 'inkwell.nothing.v1.NothingService' }).catch((e: unknown) => e);

    expect(isAppError(error) && error.code).toBe(ErrorCode.NOT_FOUND);
    expect(isAppError(error) && (error.cause as ServiceError).code).toBe(status.NOT_FOUND);
    expect(await users.checkHealth('inkwell.nothing.v1.NothingService')).toBe(false);
  });

  it('streams the current status on Watch and then every change', async () => {
    const watcher = watch(testServer.address, ProbeService.typeName);
    try {
      await watcher.received(1);
      testServer.server.health.setServing(ProbeService.typeName, false);
      await watcher.received(2);
      testServer.server.health.setServing(ProbeService.typeName, false);
      testServer.server.health.setServing(ProbeService.typeName, true);
      await watcher.received(3);

      expect(watcher.statuses).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING, ServingStatus.SERVING]);
    } finally {
      watcher.close();
      testServer.server.health.setServing(ProbeService.typeName, true);
    }
    expect((await watcher.ended).code).toBe(status.CANCELLED);
  });

  it('streams SERVICE_UNKNOWN for an unknown service on Watch and keeps watching until it appears', async () => {
    const watcher = watch(testServer.address, 'inkwell.later.v1.LaterService');
    try {
      await watcher.received(1);
      testServer.server.health.setServing('inkwell.later.v1.LaterService', true);
      await watcher.received(2);

      expect(watcher.statuses).toEqual([ServingStatus.SERVICE_UNKNOWN, ServingStatus.SERVING]);
    } finally {
      watcher.close();
    }
  });

  it('reports NOT_SERVING to watchers and ends their streams on shutdown without waiting for the grace period', async () => {
    const own = await startTestServer();
    const watcher = watch(own.address, '');
    await watcher.received(1);
    const started = Date.now();

    await own.server.shutdown(5000);

    expect(Date.now() - started).toBeLessThan(2000);
    await watcher.received(2);
    expect(watcher.statuses).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
    expect((await watcher.ended).code).toBe(status.OK);
    watcher.close();
  });

  it('answers calls while it reports NOT_SERVING for the time asked, and only then stops accepting them', async () => {
    const own = await startTestServer();
    own.setGetUser(async (request) => ({ user: { id: request.id, name: 'Rarity' } }));
    const client = createGrpcClient(ProbeService, own.address, { signer: signerOf(GATEWAY_KEY) });
    const watcher = watch(own.address, '');
    try {
      await watcher.received(1);
      const stopped = own.server.shutdown(1000, 3000);
      await watcher.received(2);
      expect(watcher.statuses).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
      expect((await client.getUser({ id: '7' })).user?.name).toBe('Rarity');
      await stopped;
      await expect(client.getUser({ id: '7' })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    } finally {
      watcher.close();
      client.close();
    }
  });
});
