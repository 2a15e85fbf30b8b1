import { randomBytes } from 'node:crypto';
import { generateToken } from '@inkwell/auth-tokens';
import { createGrpcClient, type AssertionSigner, type GrpcClient } from '@inkwell/grpc';
import { UsersService } from '@inkwell/proto/users';
import type { RunningSystem } from './system.js';

/**
 * Where the users service is and how to call it as the gateway (the only issuer it lets create
 * users' tokens and apps, docs/api/foundation.md, "Internal calls"): a running system (its
 * `addresses.users` and gateway key), or a gRPC address `host:port` with a signer whose issuer
 * is `gateway` (`KeyRing.signer('gateway')` of the test's key ring).
 */
export type UsersTarget = Pick<RunningSystem, 'addresses' | 'keys'> | { address: string; signer: AssertionSigner };

/** Options of {@link createTestUser}. */
export interface TestUserOptions {
  /** Default: a unique name (`u<time><random>`). Letters, digits, `_`, `-`, `.`; at most 64 characters. */
  name?: string;
  /** Scopes of the user's token; default none (reads public data only). */
  scopes?: readonly string[];
  /** Markdown bio; default none. */
  bio?: string;
}

/** A registered user with a personal access token. */
export interface TestUser {
  id: string;
  name: string;
  email: string;
  /** The account's password (for sign-in tests). */
  password: string;
  /** A personal access token (`iwk_pat_…`) of this user with the requested scopes: `Authorization: Bearer <token>`. */
  token: string;
}

/** Options of {@link createAppToken}. */
export interface AppTokenOptions {
  /** Scopes of the app-only token; default none. */
  scopes?: readonly string[];
  /** The app's name; default a unique one. */
  name?: string;
  /** Lifetime of the token in seconds; default 3600 (docs/api/auth.md, "Token endpoint"). */
  expiresInSeconds?: number;
}

/** A confidential app (operator-created) and an app-only access token of it, as client credentials would issue. */
export interface AppToken {
  clientId: string;
  clientSecret: string;
  /** `iwk_at_…`: no user; reads public data; user-scoped requests with it are 401/403 (docs/api/auth.md, "The token check on API requests"). */
  token: string;
}

function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

async function withUsers<T>(target: UsersTarget, fn: (users: GrpcClient<typeof UsersService>) => Promise<T>): Promise<T> {
  const address = 'address' in target ? target.address : target.addresses.users;
  if (address === undefined) throw new Error('the system has no users service address');
  const signer = 'signer' in target ? target.signer : target.keys.signer('gateway');
  const users = createGrpcClient(UsersService, address, { defaultDeadlineMs: 15_000, signer });
  try {
    return await fn(users);
  } finally {
    users.close();
  }
}

const operator = { caller: { requestId: 'test-helper', scopes: [] } };

/**
 * Registers a user through the users service's gRPC API and mints a personal access token for
 * them with `scopes`, so an end-to-end test can call the API as that user at once:
 * `fetch(url, { headers: { authorization: `Bearer ${user.token}` } })`. Names are unique per call
 * unless given; the e-mail is `<name>@example.test`.
 */
export async function createTestUser(target: UsersTarget, options: TestUserOptions = {}): Promise<TestUser> {
  const name = options.name ?? uniqueName('u');
  const email = `${name.toLowerCase()}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  return withUsers(target, async (users) => {
    const { user } = await users.registerUser({ name, email, password }, operator);
    if (user === undefined) throw new Error('RegisterUser returned no user');
    if (options.bio !== undefined && options.bio !== '') {
      await users.updateUser({ id: user.id, bio: options.bio }, { caller: { requestId: 'test-helper', userId: user.id, scopes: ['write_user'] } });
    }
    // A personal token is always the caller's own: the helper signs as the gateway does for the user's session.
    const { token } = await users.createPersonalToken({ name: 'test token', scopes: [...(options.scopes ?? [])] }, { caller: { requestId: 'test-helper', userId: user.id, scopes: [] } });
    return { id: user.id, name: user.name, email, password, token };
  });
}

/**
 * Creates an operator-owned confidential app and stores an app-only access token for it directly
 * in the users service (SaveTokens), as the gateway's client-credentials grant would. Use it to
 * test what an app without a user may do.
 */
export async function createAppToken(target: UsersTarget, options: AppTokenOptions = {}): Promise<AppToken> {
  return withUsers(target, async (users) => {
    const { client, clientSecret } = await users.createClient(
      { name: options.name ?? uniqueName('test app '), redirectUris: ['http://127.0.0.1/callback'], confidential: true },
      operator,
    );
    if (client === undefined) throw new Error('CreateClient returned no client');
    const token = generateToken('accessToken');
    await users.saveTokens({ accessToken: token, accessExpiresAt: inSeconds(options.expiresInSeconds ?? 3600), clientId: client.id, scopes: [...(options.scopes ?? [])] }, operator);
    return { clientId: client.id, clientSecret, token };
  });
}

/** The redirect URI of the apps the helpers create. */
const TEST_REDIRECT_URI = 'http://127.0.0.1/callback';

/** Options of {@link authorizeApp}. */
export interface AppAuthorizationOptions {
  /** The app (its `client_id`), which must have `http://127.0.0.1/callback` among its redirect URIs (as {@link createTestApp}'s). */
  clientId: string;
  /** The user who authorizes it. */
  userId: string;
  /** The scopes granted. */
  scopes: readonly string[];
  /** Lifetime of the access token in seconds; default 3600. */
  expiresInSeconds?: number;
}

/**
 * Records that `userId` authorized the app with `scopes`, as the gateway's authorization-code
 * grant would (an authorization code saved, then exchanged for an access token: SaveTokens), so
 * that the users service reports the grant (e.g. to the webhooks service's GetUserAppScopes).
 * Returns the app's access token for that user.
 */
export async function authorizeApp(target: UsersTarget, options: AppAuthorizationOptions): Promise<string> {
  return withUsers(target, async (users) => {
    const as = { caller: { requestId: 'test-helper', userId: options.userId, scopes: [] } };
    const { authorizationCode } = await users.saveAuthorizationCode(
      { code: randomBytes(16).toString('hex'), clientId: options.clientId, redirectUri: TEST_REDIRECT_URI, scopes: [...options.scopes], expiresAt: inSeconds(60) },
      as,
    );
    if (authorizationCode === undefined) throw new Error('SaveAuthorizationCode returned no code');
    const token = generateToken('accessToken');
    await users.saveTokens({ accessToken: token, accessExpiresAt: inSeconds(options.expiresInSeconds ?? 3600), clientId: options.clientId, scopes: [...options.scopes], authorizationCodeId: authorizationCode.id }, as);
    return token;
  });
}

/** Creates a confidential app owned by `ownerId` (redirect URI `http://127.0.0.1/callback`); returns its `client_id`. */
export async function createTestApp(target: UsersTarget, ownerId: string, name = uniqueName('test app ')): Promise<string> {
  return withUsers(target, async (users) => {
    const { client } = await users.createClient({ name, redirectUris: [TEST_REDIRECT_URI], confidential: true }, { caller: { requestId: 'test-helper', userId: ownerId, scopes: [] } });
    if (client === undefined) throw new Error('CreateClient returned no client');
    return client.id;
  });
}

/** The protobuf timestamp `seconds` from now, to the millisecond (a whole-second floor could leave a 1 s token a few ms to live). */
function inSeconds(seconds: number): { seconds: bigint; nanos: number } {
  const at = Date.now() + seconds * 1000;
  return { seconds: BigInt(Math.floor(at / 1000)), nanos: (at % 1000) * 1_000_000 };
}
