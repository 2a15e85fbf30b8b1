import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, isAppError } from '@inkwell/errors';
import { Health, HealthCheckResponse_ServingStatus } from '@inkwell/proto/health';
import { ProbeService } from '@inkwell/proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcClient, type CallerContext, type GrpcClient, type GrpcClientOptions, type GrpcTls } from '../src/index.js';
import { closedPort, GATEWAY_KEY, signerOf, startTestServer, type TestServer } from './test-server.js';

const caller: CallerContext = { requestId: 'req-tls', userId: '42', scopes: [] };

/**
 * A CA and a certificate it signed for `localhost` and 127.0.0.1, usable by servers and clients
 * alike (as the one certificate of deploy/k8s/components/grpc-tls), made with openssl in `dir`.
 */
function issueCertificates(dir: string, name: string): GrpcTls {
  const file = (suffix: string) => join(dir, `${name}.${suffix}`);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '1', '-subj', `/CN=${name} test CA`);
  openssl('req', ...ecKey, '-keyout', file('key'), '-out', file('csr'), '-subj', '/CN=inkwell-internal');
  writeFileSync(file('ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  openssl('x509', '-req', '-in', file('csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('crt'), '-days', '1', '-extfile', file('ext'));
  return { cert: readFileSync(file('crt'), 'utf8'), key: readFileSync(file('key'), 'utf8'), ca: readFileSync(file('ca.crt'), 'utf8') };
}

/** The error code of a call, `OK` when it succeeds. */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'OK';
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
}

describe('gRPC over TLS between processes (docs/api/foundation.md, "Internal calls")', () => {
  let dir: string;
  let tls: GrpcTls;
  let stranger: GrpcTls;
  let server: TestServer;
  let healthPort: number;
  const clients: GrpcClient<typeof ProbeService | typeof Health>[] = [];

  function client<S extends typeof ProbeService | typeof Health>(service: S, address: string, options: GrpcClientOptions): GrpcClient<S> {
    const created = createGrpcClient(service, address, { defaultDeadlineMs: 5_000, ...options });
    clients.push(created);
    return created;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inkwell-grpc-tls-'));
    tls = issueCertificates(dir, 'inkwell');
    // The same kind of certificate, of another CA: a process of another system.
    stranger = issueCertificates(dir, 'stranger');
    healthPort = await closedPort();
    server = await startTestServer({ listen: { tls, healthPort } });
    server.setGetUser(async (request, ctx) => ({ user: { id: request.id, name: ctx.caller.userId ?? '' } }));
  });

  afterAll(async () => {
    for (const created of clients) created.close();
    await server?.server.shutdown(1000);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('lets a client with a certificate of the CA call, signed as ever', async () => {
    const { user } = await client(ProbeService, server.address, { signer: signerOf(GATEWAY_KEY), tls }).getUser({ id: '7' }, { caller });

    expect(user).toMatchObject({ id: '7', name: '42' });
  });

  it('refuses a server whose certificate does not name the host dialled', async () => {
    // As if the address were stories:50052: the certificate names localhost and 127.0.0.1 only.
    const options = { signer: signerOf(GATEWAY_KEY), tls, channelOptions: { 'grpc.ssl_target_name_override': 'stories' } };
    const code = await codeOf(client(ProbeService, server.address, options).getUser({ id: '8' }, { caller }));

    expect(code).toBe(ErrorCode.UNAVAILABLE);
  });

  it('refuses a plaintext client, even one holding a valid key, before any call reaches a handler', async () => {
    const code = await codeOf(client(ProbeService, server.address, { signer: signerOf(GATEWAY_KEY) }).getUser({ id: '1' }, { caller }));

    expect(code).toBe(ErrorCode.UNAVAILABLE);
  });

  it('refuses a TLS client whose certificate is not of the CA, and a client that trusts another CA refuses the server', async () => {
    const foreignClient = await codeOf(client(ProbeService, server.address, { signer: signerOf(GATEWAY_KEY), tls: stranger }).getUser({ id: '1' }, { caller }));
    const foreignServer = await codeOf(client(ProbeService, server.address, { signer: signerOf(GATEWAY_KEY), tls: { ...tls, ca: stranger.ca } }).getUser({ id: '1' }, { caller }));

    expect(foreignClient).toBe(ErrorCode.UNAVAILABLE);
    expect(foreignServer).toBe(ErrorCode.UNAVAILABLE);
  });

  it('answers plaintext health checks on the health port, and nothing else there', async () => {
    const address = `127.0.0.1:${healthPort}`;
    const health = client(Health, address, {});
    const probe = client(ProbeService, address, { signer: signerOf(GATEWAY_KEY) });

    expect((await health.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect(await codeOf(probe.getUser({ id: '1' }, { caller }))).toBe(ErrorCode.UNIMPLEMENTED);
  });
});
