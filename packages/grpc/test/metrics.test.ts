import { AppError, ErrorCode } from '@inkwell/errors';
import { createLogger } from '@inkwell/logging';
import { ProbeService } from '@inkwell/proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcClient, createMetricsRegistry, serveMetrics, type GrpcClient, type MetricsServer } from '../src/index.js';
import { closedPort, GATEWAY_KEY, signerOf, startTestServer, type TestServer } from './test-server.js';

const registry = createMetricsRegistry();
let testServer: TestServer;
let client: GrpcClient<typeof ProbeService>;
let unsigned: GrpcClient<typeof ProbeService>;
let endpoint: MetricsServer;

beforeAll(async () => {
  testServer = await startTestServer({ metrics: registry });
  testServer.setGetUser(async (request) => {
    if (request.id === '404') throw new AppError(ErrorCode.NOT_FOUND, 'No such user.');
    return { user: { id: request.id, name: 'n' } };
  });
  client = createGrpcClient(ProbeService, testServer.address, { signer: signerOf(GATEWAY_KEY) });
  unsigned = createGrpcClient(ProbeService, testServer.address);
  endpoint = await serveMetrics({ registry, port: await closedPort(), host: '127.0.0.1', logger: createLogger('metrics-test', { level: 'silent' }) });
});

afterAll(async () => {
  client.close();
  unsigned.close();
  await endpoint.close();
  await testServer.server.shutdown(1000);
});

/** The value of one sample line of the endpoint's text, 0 when absent. */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${endpoint.port}/metrics`)).text();
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && wanted.every((label) => candidate.includes(label)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const getUser = { grpc_service: 'inkwell.testing.v1.ProbeService', grpc_method: 'GetUser' };

describe('gRPC server metrics', () => {
  it('counts every call by method and status code, refused calls included', async () => {
    await client.getUser({ id: '1' });
    await client.getUser({ id: '2' });
    await expect(client.getUser({ id: '404' })).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(unsigned.getUser({ id: '1' })).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });

    expect(await sample('grpc_server_handled_total', { ...getUser, grpc_code: 'OK' })).toBe(2);
    expect(await sample('grpc_server_handled_total', { ...getUser, grpc_code: 'NOT_FOUND' })).toBe(1);
    expect(await sample('grpc_server_handled_total', { ...getUser, grpc_code: 'UNAUTHENTICATED' })).toBe(1);
    expect(await sample('grpc_server_handling_seconds_count', getUser)).toBe(4);
  });

  it('serves Node process metrics beside them, and nothing but /metrics', async () => {
    const text = await (await fetch(`http://127.0.0.1:${endpoint.port}/metrics`)).text();
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect((await fetch(`http://127.0.0.1:${endpoint.port}/other`)).status).toBe(404);
  });

  it('serves nothing when the port is 0', async () => {
    const off = await serveMetrics({ registry, port: 0, logger: createLogger('metrics-test', { level: 'silent' }) });
    expect(off.port).toBeUndefined();
    await off.close();
  });
});
