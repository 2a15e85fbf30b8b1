import { ProbeService } from '@inkwell/proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcClient, grpcTarget, type GrpcClient } from '../src/index.js';
import { GATEWAY_KEY, signerOf, startTestServer, type TestServer } from './test-server.js';

let replicas: TestServer[];
let client: GrpcClient<typeof ProbeService>;

beforeAll(async () => {
  replicas = [await startTestServer(), await startTestServer()];
  replicas.forEach((replica, index) => replica.setGetUser(async (request) => ({ user: { id: request.id, name: `replica-${index}` } })));
  // Two replicas behind one target, as a headless Service's name resolves to every pod.
  const target = `ipv4:${replicas.map((replica) => replica.address).join(',')}`;
  client = createGrpcClient(ProbeService, target, { signer: signerOf(GATEWAY_KEY) });
});

afterAll(async () => {
  client.close();
  for (const replica of replicas) await replica.server.shutdown(1000);
});

describe('per-call balancing', () => {
  it('spreads the calls of one client over every replica, round robin', async () => {
    const answeredBy: string[] = [];
    for (let i = 0; i < 20; i++) answeredBy.push((await client.getUser({ id: String(i + 1) })).user?.name ?? '');

    const first = answeredBy.filter((name) => name === 'replica-0').length;
    const second = answeredBy.filter((name) => name === 'replica-1').length;
    // Round robin alternates once both connections are ready: neither replica is left idle.
    expect(first).toBeGreaterThanOrEqual(5);
    expect(second).toBeGreaterThanOrEqual(5);
    expect(first + second).toBe(20);
  });

  it('keeps working when one replica goes away', async () => {
    const [gone, staying] = replicas as [TestServer, TestServer];
    await gone.server.shutdown(1000);

    const names = new Set<string>();
    for (let i = 0; i < 6; i++) names.add((await client.getUser({ id: '1' })).user?.name ?? '');

    expect([...names]).toEqual([`replica-${replicas.indexOf(staying)}`]);
  });
});

describe('grpcTarget', () => {
  it('resolves a plain host:port through DNS and keeps a target that names its resolver', () => {
    expect(grpcTarget('users:50051')).toBe('dns:///users:50051');
    expect(grpcTarget('127.0.0.1:50051')).toBe('dns:///127.0.0.1:50051');
    expect(grpcTarget('ipv4:127.0.0.1:1,127.0.0.1:2')).toBe('ipv4:127.0.0.1:1,127.0.0.1:2');
    expect(grpcTarget('dns:///users.inkwell.svc:50051')).toBe('dns:///users.inkwell.svc:50051');
  });
});
