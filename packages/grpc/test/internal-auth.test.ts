import { ErrorCode } from '@inkwell/errors';
import { ProbeService } from '@inkwell/proto/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ASSERTION_METADATA_KEY, AssertionVerifier, createGrpcClient, Metadata, type CallerContext, type GrpcClient, type GrpcClientOptions, type HandlerContext } from '../src/index.js';
import { GATEWAY_KEY, rejection, signerOf, startTestServer, testKey, trustedKeysOf, type TestServer } from './test-server.js';

const GET_USER = '/inkwell.testing.v1.ProbeService/GetUser';
const caller: CallerContext = { requestId: 'req-auth', userId: '42', appId: '7', scopes: ['read_user', 'write_user'] };
/** A second key of the gateway, as during a rotation. */
const GATEWAY_NEXT_KEY = testKey('gateway', 'gateway-2');
const BOOKSHELVES_KEY = testKey('bookshelves');

let testServer: TestServer;
let seen: HandlerContext[];
/** A client without a signer: sends whatever assertion a test puts in its metadata. */
let unsigned: GrpcClient<typeof ProbeService>;
const clients: GrpcClient<typeof ProbeService>[] = [];

beforeAll(async () => {
  testServer = await startTestServer({ trusted: [GATEWAY_KEY, GATEWAY_NEXT_KEY, BOOKSHELVES_KEY] });
  unsigned = client();
});

afterAll(async () => {
  for (const client of clients) client.close();
  await testServer.server.shutdown(1000);
});

beforeEach(() => {
  seen = [];
  testServer.setGetUser(async (request, ctx) => {
    seen.push(ctx);
    return { user: { id: request.id } };
  });
});

function client(options: GrpcClientOptions = {}, address = testServer.address): GrpcClient<typeof ProbeService> {
  const created = createGrpcClient(ProbeService, address, options);
  clients.push(created);
  return created;
}

/** Calls GetUser with `token` as the assertion (none when undefined) and no signer of its own. */
function callWithToken(token: string | undefined, extra: Record<string, string> = {}): Promise<unknown> {
  const metadata = new Metadata();
  if (token !== undefined) metadata.set(ASSERTION_METADATA_KEY, token);
  for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
  return unsigned.getUser({ id: '1' }, { metadata });
}

/** Asserts an UNAUTHENTICATED refusal naming `reason`, and that no handler ran. */
async function expectUnauthenticated(promise: Promise<unknown>, reason: string): Promise<void> {
  const error = await rejection(promise);
  expect(error.code).toBe(ErrorCode.UNAUTHENTICATED);
  expect(error.message).toContain(reason);
  expect(seen).toHaveLength(0);
}

describe('signed caller assertions', () => {
  it('carries the caller and the issuer to the handler when the assertion is valid', async () => {
    await client({ signer: signerOf(GATEWAY_KEY) }).getUser({ id: '1' }, { caller });

    expect(seen).toHaveLength(1);
    expect(seen[0]?.caller).toEqual(caller);
    expect(seen[0]?.issuer).toBe('gateway');
  });

  it('gives a call without a caller the issuer identity, no user and a fresh request id', async () => {
    await client({ signer: signerOf(BOOKSHELVES_KEY) }).getUser({ id: '1' });

    expect(seen[0]?.issuer).toBe('bookshelves');
    expect(seen[0]?.caller.userId).toBeUndefined();
    expect(seen[0]?.caller.appId).toBeUndefined();
    expect(seen[0]?.caller.scopes).toEqual([]);
    expect(seen[0]?.caller.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ignores forged caller metadata beside a valid assertion: user, app and scopes come from the assertion only', async () => {
    const token = signerOf(GATEWAY_KEY).sign('testing', GET_USER, { scopes: [] });

    await callWithToken(token, { 'x-inkwell-user-id': '1', 'x-inkwell-scopes': 'write_user', 'x-request-id': 'req-7' });

    expect(seen[0]?.caller).toEqual({ requestId: 'req-7', scopes: [] });
  });

  it("takes the request id from the call's x-request-id, and a fresh one when it is not sane", async () => {
    const token = signerOf(GATEWAY_KEY).sign('testing', GET_USER, { scopes: [] });

    await callWithToken(token, { 'x-request-id': 'two words' });

    expect(seen[0]?.caller.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reuses an assertion for the same service, method and caller until half its lifetime has passed, and signs anew for anything else', () => {
    let now = Date.parse('2026-11-24T12:00:00Z');
    const signer = signerOf(GATEWAY_KEY, { now: () => now });
    const first = signer.sign('testing', GET_USER, caller);

    const sameCallerAnotherRequest: CallerContext = { ...caller, requestId: 'another request' };
    expect(signer.sign('testing', GET_USER, sameCallerAnotherRequest)).toBe(first);
    expect(signer.sign('testing', GET_USER, { ...caller, scopes: ['read_user'] })).not.toBe(first);
    expect(signer.sign('testing', GET_USER, { ...caller, userId: '43' })).not.toBe(first);
    expect(signer.sign('users', GET_USER, caller)).not.toBe(first);
    expect(signer.sign('testing', '/inkwell.testing.v1.ProbeService/DeleteUser', caller)).not.toBe(first);
    now += 29_000;
    expect(signer.sign('testing', GET_USER, caller)).toBe(first);
    now += 1_000;
    expect(signer.sign('testing', GET_USER, caller)).not.toBe(first);
  });

  it('checks a remembered assertion again for its method and expiry on every call', () => {
    let now = Date.now();
    const verifier = new AssertionVerifier({ audience: 'testing', trustedKeys: trustedKeysOf(GATEWAY_KEY), now: () => now });
    const token = signerOf(GATEWAY_KEY).sign('testing', GET_USER, caller);

    expect(verifier.verify(token, GET_USER).caller).toEqual({ userId: '42', appId: '7', scopes: ['read_user', 'write_user'] });
    expect(() => verifier.verify(token, '/inkwell.testing.v1.ProbeService/DeleteUser')).toThrow('another method');
    now += 71_000;
    expect(() => verifier.verify(token, GET_USER)).toThrow('expired caller assertion');
  });

  it('forgets assertions that are past their use, so a busy process keeps only its live callers', () => {
    let now = Date.parse('2026-11-24T12:00:00Z');
    const signer = signerOf(GATEWAY_KEY, { now: () => now });
    const verifier = new AssertionVerifier({ audience: 'testing', trustedKeys: trustedKeysOf(GATEWAY_KEY), now: () => now });
    for (const userId of ['1', '2', '3']) verifier.verify(signer.sign('testing', GET_USER, { ...caller, userId }), GET_USER);
    expect([signer.keptAssertions, verifier.rememberedAssertions]).toEqual([3, 3]);

    now += 30_000; // half the lifetime: due for renewal, but still valid
    verifier.verify(signer.sign('testing', GET_USER, { ...caller, userId: '4' }), GET_USER);
    expect([signer.keptAssertions, verifier.rememberedAssertions]).toEqual([1, 4]);

    now += 41_000; // past the first three's expiry and the clock skew
    verifier.verify(signer.sign('testing', GET_USER, { ...caller, userId: '5' }), GET_USER);
    expect([signer.keptAssertions, verifier.rememberedAssertions]).toEqual([1, 2]);
  });

  it('refuses a call without an assertion, even with caller metadata', async () => {
    await expectUnauthenticated(callWithToken(undefined, { 'x-inkwell-user-id': '1', 'x-inkwell-scopes': 'write_user' }), 'no caller assertion');
  });

  it.each([
    ['not a token', 'garbage'],
    ['three parts', 'aaa.bbb.ccc'],
    ['a JSON header with no key id', `${Buffer.from('{"alg":"EdDSA"}').toString('base64url')}.e30.AAAA`],
    ['alg none', `${Buffer.from('{"alg":"none","kid":"gateway-1"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.AAAA`],
  ])('refuses a malformed assertion (%s)', async (_name, token) => {
    await expectUnauthenticated(callWithToken(token), 'malformed caller assertion');
  });

  it('refuses an expired assertion', async () => {
    const past = () => Date.now() - 120_000;

    await expectUnauthenticated(client({ signer: signerOf(GATEWAY_KEY, { now: past }) }).getUser({ id: '1' }, { caller }), 'expired caller assertion');
  });

  it('refuses an assertion issued in the future beyond the clock skew, and accepts one within it', async () => {
    const future = () => Date.now() + 60_000;
    await expectUnauthenticated(client({ signer: signerOf(GATEWAY_KEY, { now: future }) }).getUser({ id: '1' }, { caller }), 'not valid yet');

    await client({ signer: signerOf(GATEWAY_KEY, { now: () => Date.now() + 5_000 }) }).getUser({ id: '1' }, { caller });
    expect(seen).toHaveLength(1);
  });

  it('refuses an assertion signed by another key under a trusted key id', async () => {
    const impostor = { ...testKey('gateway'), keyId: GATEWAY_KEY.keyId };

    await expectUnauthenticated(client({ signer: signerOf(impostor) }).getUser({ id: '1' }, { caller }), 'bad signature');
  });

  it('refuses an assertion of an untrusted issuer, and of an unknown key id of a trusted issuer', async () => {
    await expectUnauthenticated(client({ signer: signerOf(testKey('intruder')) }).getUser({ id: '1' }, { caller }), 'untrusted key');
    await expectUnauthenticated(client({ signer: signerOf(testKey('gateway', 'gateway-9')) }).getUser({ id: '1' }, { caller }), 'untrusted key');
  });

  it('refuses an assertion addressed to another service', async () => {
    await expectUnauthenticated(client({ signer: signerOf(GATEWAY_KEY), audience: 'users' }).getUser({ id: '1' }, { caller }), 'another service');
  });

  it('refuses an assertion signed for another method', async () => {
    const token = signerOf(GATEWAY_KEY).sign('testing', '/inkwell.testing.v1.ProbeService/DeleteUser', caller);

    await expectUnauthenticated(callWithToken(token), 'another method');
  });

  it('refuses a tampered payload (another user under the original signature)', async () => {
    const [header, payload, signature] = signerOf(GATEWAY_KEY).sign('testing', GET_USER, caller).split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '1' })).toString('base64url');

    await expectUnauthenticated(callWithToken(`${header}.${forged}.${signature}`), 'bad signature');
  });

  it('accepts both keys of an issuer while both are trusted (rotation)', async () => {
    await client({ signer: signerOf(GATEWAY_KEY) }).getUser({ id: '1' }, { caller });
    await client({ signer: signerOf(GATEWAY_NEXT_KEY) }).getUser({ id: '2' }, { caller });

    expect(seen.map((ctx) => ctx.issuer)).toEqual(['gateway', 'gateway']);
  });

  it('answers health checks without an assertion', async () => {
    expect(await unsigned.checkHealth()).toBe(true);
    expect(await unsigned.checkHealth(ProbeService.typeName)).toBe(true);
  });
});

describe('issuer tables', () => {
  let restricted: TestServer;
  const restrictedSeen: string[] = [];

  beforeAll(async () => {
    restricted = await startTestServer({ trusted: [GATEWAY_KEY, BOOKSHELVES_KEY], issuers: { getUser: ['gateway'] } });
    restricted.setGetUser(async (request, ctx) => {
      restrictedSeen.push(ctx.issuer);
      return { user: { id: request.id } };
    });
  });

  afterAll(async () => {
    await restricted.server.shutdown(1000);
  });

  it('lets a listed issuer call the method and refuses another trusted issuer with PERMISSION_DENIED', async () => {
    await client({ signer: signerOf(GATEWAY_KEY) }, restricted.address).getUser({ id: '1' }, { caller });
    const error = await rejection(client({ signer: signerOf(BOOKSHELVES_KEY) }, restricted.address).getUser({ id: '1' }, { caller }));

    expect(error.code).toBe(ErrorCode.PERMISSION_DENIED);
    expect(error.message).toContain('bookshelves');
    expect(restrictedSeen).toEqual(['gateway']);
  });

  it('still answers UNAUTHENTICATED (not PERMISSION_DENIED) to an unsigned call of a restricted method', async () => {
    const error = await rejection(client({}, restricted.address).getUser({ id: '1' }));

    expect(error.code).toBe(ErrorCode.UNAUTHENTICATED);
  });
});
