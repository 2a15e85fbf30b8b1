import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer } from 'node:net';
import { isAppError, type AppError } from '@inkwell/errors';
import { createRecordingLogger, type LogLine } from '@inkwell/logging';
import { ProbeService } from '@inkwell/proto/testing';
import { AssertionSigner, AssertionVerifier, createGrpcServer, type AssertionSignerOptions, type MetricsRegistry, type GrpcServer, type IssuerTable, type ListenOptions, type ServiceImpl, type TrustedKeys } from '../src/index.js';

/** A fresh Ed25519 key pair of a test issuer. */
export interface TestKey {
  issuer: string;
  keyId: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A new key pair for `issuer` known by `keyId` (default `<issuer>-1`). */
export function testKey(issuer: string, keyId = `${issuer}-1`): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { issuer, keyId, privateKey, publicKey };
}

/** The trusted-key map of `keys` (several keys of one issuer are all trusted). */
export function trustedKeysOf(...keys: TestKey[]): TrustedKeys {
  const trusted = new Map<string, Map<string, KeyObject>>();
  for (const key of keys) trusted.set(key.issuer, new Map([...(trusted.get(key.issuer) ?? []), [key.keyId, key.publicKey]]));
  return trusted;
}

/** A signer with `key`, options overridable (lifetime, clock). */
export function signerOf(key: TestKey, options: Partial<AssertionSignerOptions> = {}): AssertionSigner {
  return new AssertionSigner({ issuer: key.issuer, keyId: key.keyId, privateKey: key.privateKey, ...options });
}

/** The issuer key the default test server trusts (issuer `gateway`). */
export const GATEWAY_KEY = testKey('gateway');

type GetUser = ServiceImpl<typeof ProbeService>['getUser'];

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** The keys the server trusts (default: GATEWAY_KEY only). */
  trusted?: TestKey[];
  /** The issuer table of ProbeService (default: every issuer of `trusted`). */
  issuers?: IssuerTable<typeof ProbeService>;
  /** Where the server records its call metrics (default: nowhere). */
  metrics?: MetricsRegistry;
  /** How it listens (default: plaintext, no health port). */
  listen?: ListenOptions;
}

/** A ProbeService server on a free loopback port whose getUser does whatever `handler` is set to. */
export interface TestServer {
  server: GrpcServer;
  address: string;
  lines: LogLine[];
  setGetUser(handler: GetUser): void;
}

/**
 * Starts a real server on 127.0.0.1:0 serving ProbeService (plus the built-in health service),
 * verifying assertions addressed to `testing` (the audience clients derive from inkwell.testing.v1).
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { logger, lines } = createRecordingLogger('grpc-test');
  let getUser: GetUser = async () => {
    throw new Error('no handler set');
  };
  const trusted = options.trusted ?? [GATEWAY_KEY];
  const verifier = new AssertionVerifier({ audience: 'testing', trustedKeys: trustedKeysOf(...trusted) });
  const server = createGrpcServer({ logger, verifier, ...(options.metrics === undefined ? {} : { metrics: options.metrics }) }).add(
    ProbeService,
    { getUser: (request, ctx) => getUser(request, ctx) },
    { issuers: options.issuers ?? { getUser: [...new Set(trusted.map((key) => key.issuer))] } },
  );
  const port = await server.listen('127.0.0.1:0', options.listen);
  return {
    server,
    address: `127.0.0.1:${port}`,
    lines,
    setGetUser(handler) {
      getUser = handler;
    },
  };
}

/** A loopback port that nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A promise with its resolve function (Promise.withResolvers needs Node 22). */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** The AppError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error;
    throw new Error(`expected an AppError, got ${String(error)}`);
  }
  throw new Error('expected the call to fail');
}
