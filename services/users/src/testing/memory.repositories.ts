import { randomBytes, scryptSync } from 'node:crypto';
import { AppError, ErrorCode } from '@inkwell/errors';
import { MemorySequence } from '@inkwell/testing/memory';
import type { Follow, FollowDirection, FollowPosition } from '../domain/follow.js';
import type { AccessTokenInfo, AuthorizationCode, OAuthClient, PersonalToken, RefreshTokenInfo } from '../domain/oauth.js';
import { reserveAttempt, reserveFromAddress, type AddressAttempts, type Reservation, type ThrottleState } from '../domain/sign-in-throttle.js';
import type { User } from '../domain/user.js';
import type { ConsumeOutcome, NewAuthorizationCode, StoredAuthorizationCode } from '../repositories/authorization-code.repository.js';
import type { FollowOutcome, FollowPage } from '../repositories/follow.repository.js';
import type { DeletedClient, NewClient } from '../repositories/oauth-client.repository.js';
import type { RevocationNotifier } from '../repositories/revocation.notifier.js';
import type { NewTokens, Pruned, Revoked, SaveOutcome, StoredAccessToken, StoredRefreshToken } from '../repositories/token.repository.js';
import type { NewUser, UserChanges, UserCredentials } from '../repositories/user.repository.js';
import { AccountService, type SignInThrottleStore, type UserStore } from '../services/account.service.js';
import { FollowService, type FollowStore } from '../services/follow.service.js';
import { OAuthClientService, type ClientStore } from '../services/oauth-client.service.js';
import { OAuthTokenService, type AuthorizationCodeStore, type OAuthTokenStore } from '../services/oauth-token.service.js';
import { PersonalTokenService, type PersonalTokenStore } from '../services/personal-token.service.js';

/** A token family: the tokens of one code exchange and its refreshes, of one client's app-only grant, or one personal token. */
interface Family {
  id: string;
  clientId?: string;
  userId?: string;
  authorizationCodeId?: string;
  personalName?: string;
  revoked: boolean;
}

interface StoredAccess {
  info: AccessTokenInfo;
  familyId: string;
  revoked: boolean;
}

interface StoredRefresh {
  info: RefreshTokenInfo;
  tokenHash: string;
  revoked: boolean;
  used: boolean;
}

interface StoredCode {
  code: AuthorizationCode;
  codeHash: string;
  consumed: boolean;
  reused: boolean;
}

/** The tables of the users schema in memory, shared by the memory repositories below; ids are increasing numeric strings. */
export class MemoryUsersData extends MemorySequence {
  readonly users = new Map<string, { user: User; passwordHash: string }>();
  readonly follows: Follow[] = [];
  readonly clients = new Map<string, { client: OAuthClient; secretHash?: string }>();
  readonly codes: StoredCode[] = [];
  readonly families = new Map<string, Family>();
  readonly accessTokens: StoredAccess[] = [];
  readonly refreshTokens: StoredRefresh[] = [];
  readonly throttles = new Map<string, ThrottleState>();
  readonly addressAttempts = new Map<string, AddressAttempts>();
  /** Every revocation notice sent to the gateways, in order. */
  readonly notices: string[][] = [];

  /**
   * Stores a user named `name` (e-mail `<name>@example.com`) with `password` as if registered
   * earlier; returns its id. The hash has the stored format at a tiny cost, so a sign-in test
   * checks it in a millisecond (the format names its cost: verifyPassword reads it from there).
   */
  putUser(name: string, password = 'correct horse battery'): string {
    const id = this.nextId();
    const salt = randomBytes(16);
    const passwordHash = ['scrypt', 1024, 8, 1, salt.toString('base64url'), scryptSync(password.normalize('NFKC'), salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64url')].join('$');
    this.users.set(id, {
      user: { id, name, email: `${name}@example.com`, bio: '', bioHtml: '', numFollowers: 0, numFollowing: 0, numStories: 0, numBlogPosts: 0, dateJoined: this.now() },
      passwordHash,
    });
    return id;
  }

  /** Revokes the families `which` selects and every token in them, as TokenRepository's revokeGrants reports it. */
  revokeFamilies(which: (family: Family) => boolean): Revoked {
    const now = new Date();
    const ids = new Set([...this.families.values()].filter((family) => !family.revoked && which(family)).map((family) => family.id));
    for (const id of ids) this.families.get(id)!.revoked = true;
    const access = this.accessTokens.filter((token) => ids.has(token.familyId) && !token.revoked);
    const refresh = this.refreshTokens.filter((token) => ids.has(token.info.familyId) && !token.revoked);
    for (const token of [...access, ...refresh]) token.revoked = true;
    const count = access.filter((token) => token.info.expiresAt === undefined || token.info.expiresAt > now).length + refresh.filter((token) => !token.used && token.info.expiresAt > now).length;
    return { accessTokenHashes: access.map((token) => token.info.tokenHash), count };
  }
}

function copyUser(user: User): User {
  return { ...user };
}

function alreadyTaken(field: 'name' | 'email'): AppError {
  const detail = `This ${field === 'name' ? 'name' : 'e-mail address'} is already taken.`;
  return new AppError(ErrorCode.ALREADY_EXISTS, detail, { details: [{ reason: 'conflict', pointer: `/data/attributes/${field}`, detail }] });
}

/** UserRepository in memory: names and e-mail addresses unique regardless of case (ALREADY_EXISTS naming the attribute). */
export class MemoryUserRepository implements UserStore {
  constructor(private readonly data: MemoryUsersData) {}

  async findById(id: string): Promise<User | undefined> {
    const found = this.data.users.get(id);
    return found && copyUser(found.user);
  }

  async findByIds(ids: readonly string[]): Promise<{ users: User[]; covered: number }> {
    return { users: ids.flatMap((id) => { const found = this.data.users.get(id); return found ? [copyUser(found.user)] : []; }), covered: ids.length };
  }

  async findByName(name: string): Promise<User | undefined> {
    const found = [...this.data.users.values()].find(({ user }) => user.name.toLowerCase() === name.toLowerCase());
    return found && copyUser(found.user);
  }

  async findCredentials(login: string): Promise<UserCredentials | undefined> {
    const lower = login.toLowerCase();
    const found = [...this.data.users.values()].find(({ user }) => user.name.toLowerCase() === lower || user.email.toLowerCase() === lower);
    return found && { user: copyUser(found.user), passwordHash: found.passwordHash };
  }

  async create(user: NewUser): Promise<User> {
    if (await this.findByName(user.name)) throw alreadyTaken('name');
    this.#assertEmailFree(user.email, undefined);
    const id = this.data.nextId();
    const created: User = { id, name: user.name, email: user.email, bio: user.bio, bioHtml: user.bioHtml, numFollowers: 0, numFollowing: 0, numStories: 0, numBlogPosts: 0, dateJoined: this.data.now() };
    this.data.users.set(id, { user: created, passwordHash: user.passwordHash });
    return copyUser(created);
  }

  async update(id: string, changes: UserChanges, signal?: AbortSignal): Promise<User | undefined> {
    const found = this.data.users.get(id);
    if (!found) return undefined;
    if (changes.email !== undefined) this.#assertEmailFree(changes.email, id);
    signal?.throwIfAborted();
    if (changes.email !== undefined) found.user.email = changes.email;
    if (changes.bio !== undefined) Object.assign(found.user, { bio: changes.bio.text, bioHtml: changes.bio.html });
    return copyUser(found.user);
  }

  #assertEmailFree(email: string, ownerId: string | undefined): void {
    const taken = [...this.data.users.values()].some(({ user }) => user.id !== ownerId && user.email.toLowerCase() === email.toLowerCase());
    if (taken) throw alreadyTaken('email');
  }
}

/** SignInThrottleRepository in memory, deciding with the same domain rules on the process clock. */
export class MemorySignInThrottles implements SignInThrottleStore {
  constructor(private readonly data: MemoryUsersData) {}

  async reserve(key: string, address: string): Promise<Reservation> {
    const now = new Date();
    let reservation = reserveAttempt(this.data.throttles.get(key), now);
    if (address !== '') {
      const counted = reserveFromAddress(reservation, this.data.addressAttempts.get(`${key}|${address}`), now);
      reservation = counted.reservation;
      this.data.addressAttempts.set(`${key}|${address}`, counted.address);
    }
    this.data.throttles.set(key, reservation.state);
    return reservation;
  }

  async clear(keys: readonly string[], address: string): Promise<void> {
    const now = Date.now();
    for (const key of keys) {
      this.data.addressAttempts.delete(`${key}|${address}`);
      const state = this.data.throttles.get(key);
      if (state && (state.lockedUntil === undefined || state.lockedUntil.getTime() <= now)) this.data.throttles.delete(key);
    }
  }

  async prune(olderThanMs: number, limit = 1000): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    const counters = [...this.data.throttles].filter(([, state]) => state.updatedAt.getTime() < cutoff && (state.lockedUntil === undefined || state.lockedUntil.getTime() < Date.now())).slice(0, limit);
    const addresses = [...this.data.addressAttempts].filter(([, record]) => record.updatedAt.getTime() < cutoff).slice(0, limit);
    for (const [key] of counters) this.data.throttles.delete(key);
    for (const [key] of addresses) this.data.addressAttempts.delete(key);
    return counters.length + addresses.length;
  }
}

/** FollowRepository in memory: one follow per pair (ALREADY_EXISTS on the `followed` relationship), counts kept on both users. */
export class MemoryFollowRepository implements FollowStore {
  constructor(private readonly data: MemoryUsersData) {}

  async follow(followerId: string, followedId: string): Promise<FollowOutcome> {
    const missing = this.#missing(followerId, followedId);
    if (missing) return { missing };
    if (this.data.follows.some((follow) => follow.followerId === followerId && follow.followedId === followedId)) {
      throw new AppError(ErrorCode.ALREADY_EXISTS, 'You already follow this user.', {
        details: [{ reason: 'conflict', pointer: '/data/relationships/followed', detail: 'You already follow this user.' }],
      });
    }
    const follow: Follow = { id: this.data.nextId(), followerId, followedId, dateFollowed: this.data.now() };
    this.data.follows.push(follow);
    this.#moveCounts(followerId, followedId, 1);
    return { follow: { ...follow } };
  }

  async unfollow(followerId: string, followedId: string): Promise<Follow | undefined> {
    if (this.#missing(followerId, followedId)) return undefined;
    const index = this.data.follows.findIndex((follow) => follow.followerId === followerId && follow.followedId === followedId);
    if (index === -1) return undefined;
    const [removed] = this.data.follows.splice(index, 1);
    this.#moveCounts(followerId, followedId, -1);
    return removed;
  }

  async list(userId: string, direction: FollowDirection, size: number, after: FollowPosition | undefined): Promise<FollowPage> {
    const micros = (follow: Follow) => BigInt(follow.dateFollowed.getTime()) * 1000n;
    const rest = this.data.follows
      .filter((follow) => (direction === 'following' ? follow.followerId : follow.followedId) === userId)
      .sort((a, b) => a.dateFollowed.getTime() - b.dateFollowed.getTime() || Number(a.id) - Number(b.id))
      .filter((follow) => after === undefined || micros(follow) > BigInt(after.dateMicros) || (micros(follow) === BigInt(after.dateMicros) && Number(follow.id) > Number(after.id)));
    const page = rest.slice(0, size);
    const last = page.at(-1);
    return { follows: page.map((follow) => ({ ...follow })), ...(rest.length > size && last ? { next: { dateMicros: String(micros(last)), id: last.id } } : {}) };
  }

  #missing(followerId: string, followedId: string): 'follower' | 'followed' | undefined {
    if (!this.data.users.has(followerId)) return 'follower';
    if (!this.data.users.has(followedId)) return 'followed';
    return undefined;
  }

  #moveCounts(followerId: string, followedId: string, delta: 1 | -1): void {
    this.data.users.get(followerId)!.user.numFollowing += delta;
    this.data.users.get(followedId)!.user.numFollowers += delta;
  }
}

/** OAuthClientRepository in memory: the per-owner cap, and a delete that takes the client's tokens with it. */
export class MemoryOAuthClientRepository implements ClientStore {
  constructor(private readonly data: MemoryUsersData) {}

  async create(client: NewClient, maxPerOwner: number): Promise<OAuthClient | undefined> {
    if (client.ownerUserId !== undefined && (await this.listByOwner(client.ownerUserId)).length >= maxPerOwner) return undefined;
    const created: OAuthClient = {
      id: client.id,
      name: client.name,
      redirectUris: [...client.redirectUris],
      allowedOrigins: [...client.allowedOrigins],
      confidential: client.confidential,
      ...(client.ownerUserId === undefined ? {} : { ownerUserId: client.ownerUserId }),
      dateCreated: this.data.now(),
    };
    this.data.clients.set(client.id, { client: created, ...(client.secretHash === undefined ? {} : { secretHash: client.secretHash }) });
    return { ...created };
  }

  async ensurePublic(client: Omit<NewClient, 'confidential' | 'secretHash' | 'ownerUserId'>): Promise<OAuthClient> {
    const dateCreated = this.data.clients.get(client.id)?.client.dateCreated ?? this.data.now();
    const ensured: OAuthClient = { id: client.id, name: client.name, redirectUris: [...client.redirectUris], allowedOrigins: [...client.allowedOrigins], confidential: false, dateCreated };
    this.data.clients.set(client.id, { client: ensured });
    return { ...ensured };
  }

  async isOriginRegistered(origin: string): Promise<boolean> {
    return [...this.data.clients.values()].some(({ client }) => client.allowedOrigins.includes(origin));
  }

  async findWithSecret(id: string): Promise<{ client: OAuthClient; secretHash?: string } | undefined> {
    const found = this.data.clients.get(id);
    return found && { ...found, client: { ...found.client } };
  }

  async setSecretHash(id: string, secretHash: string): Promise<void> {
    const found = this.data.clients.get(id);
    if (found?.client.confidential) found.secretHash = secretHash;
  }

  async listByOwner(ownerUserId: string): Promise<OAuthClient[]> {
    return [...this.data.clients.values()].filter(({ client }) => client.ownerUserId === ownerUserId).map(({ client }) => ({ ...client }));
  }

  async delete(id: string, ownerUserId: string | undefined): Promise<DeletedClient> {
    const found = this.data.clients.get(id);
    if (!found || (ownerUserId !== undefined && found.client.ownerUserId !== ownerUserId)) return { deleted: false, revokedTokenHashes: [] };
    const now = new Date();
    const families = new Set([...this.data.families.values()].filter((family) => family.clientId === id).map((family) => family.id));
    const active = this.data.accessTokens.filter((token) => families.has(token.familyId) && !token.revoked && (token.info.expiresAt === undefined || token.info.expiresAt > now));
    this.data.clients.delete(id);
    for (const familyId of families) this.data.families.delete(familyId);
    removeWhere(this.data.accessTokens, (token) => families.has(token.familyId));
    removeWhere(this.data.refreshTokens, (token) => families.has(token.info.familyId));
    removeWhere(this.data.codes, (code) => code.code.clientId === id);
    return { deleted: true, revokedTokenHashes: active.map((token) => token.info.tokenHash) };
  }
}

function removeWhere<T>(rows: T[], which: (row: T) => boolean): void {
  for (let index = rows.length - 1; index >= 0; index--) if (which(rows[index]!)) rows.splice(index, 1);
}

/** AuthorizationCodeRepository in memory: exactly one consumption; any later one is reuse and flags the code. */
export class MemoryAuthorizationCodeRepository implements AuthorizationCodeStore {
  constructor(private readonly data: MemoryUsersData) {}

  async create(code: NewAuthorizationCode): Promise<AuthorizationCode> {
    const { codeHash, ...rest } = code;
    const stored: StoredCode = { code: { id: this.data.nextId(), ...rest, scopes: [...rest.scopes] }, codeHash, consumed: false, reused: false };
    this.data.codes.push(stored);
    return { ...stored.code };
  }

  async findByHash(codeHash: string): Promise<StoredAuthorizationCode | undefined> {
    const found = this.data.codes.find((code) => code.codeHash === codeHash);
    return found && { code: { ...found.code }, consumed: found.consumed };
  }

  async consume(codeHash: string): Promise<ConsumeOutcome> {
    const found = this.data.codes.find((code) => code.codeHash === codeHash);
    if (!found) return { kind: 'unknown' };
    if (found.consumed) {
      found.reused = true;
      return { kind: 'reused', code: { ...found.code } };
    }
    found.consumed = true;
    return { kind: 'consumed', code: { ...found.code } };
  }

  async flagReuse(id: string): Promise<void> {
    const found = this.data.codes.find((code) => code.code.id === id);
    if (found) found.reused = true;
  }
}

/** TokenRepository in memory: families, rotation, the cap on active families, personal tokens; looked up by hash. */
export class MemoryTokenRepository implements OAuthTokenStore, PersonalTokenStore {
  constructor(private readonly data: MemoryUsersData) {}

  async save(tokens: NewTokens): Promise<SaveOutcome> {
    let familyId: string;
    let revoked: Revoked = { accessTokenHashes: [], count: 0 };
    if (tokens.rotatedFromRefreshId !== undefined) {
      const old = this.data.refreshTokens.find((token) => token.info.tokenId === tokens.rotatedFromRefreshId);
      if (!old || old.used || old.revoked || this.data.families.get(old.info.familyId)?.revoked) return { kind: 'refresh_lost' };
      old.used = true;
      familyId = old.info.familyId;
    } else {
      if (tokens.authorizationCodeId !== undefined) {
        const code = this.data.codes.find((candidate) => candidate.code.id === tokens.authorizationCodeId);
        if (!code || code.reused) return { kind: 'code_reused' };
        if (code.code.clientId !== tokens.clientId || code.code.userId !== tokens.userId) return { kind: 'code_mismatch' };
      }
      revoked = this.#makeRoom(tokens.clientId, tokens.userId, tokens.maxActiveFamilies - 1);
      familyId = this.data.nextId();
      this.data.families.set(familyId, {
        id: familyId,
        clientId: tokens.clientId,
        ...(tokens.userId === undefined ? {} : { userId: tokens.userId }),
        ...(tokens.authorizationCodeId === undefined ? {} : { authorizationCodeId: tokens.authorizationCodeId }),
        revoked: false,
      });
    }
    const family = this.data.families.get(familyId)!;
    const accessToken = this.#storeAccess(family, tokens.accessTokenHash, tokens.scopes, tokens.accessExpiresAt);
    if (tokens.rotatedFromRefreshId !== undefined) {
      const now = new Date();
      const earlier = this.data.accessTokens.filter((token) => token.familyId === familyId && token.info.tokenId !== accessToken.tokenId && !token.revoked);
      for (const token of earlier) token.revoked = true;
      revoked = { accessTokenHashes: earlier.map((token) => token.info.tokenHash), count: earlier.filter((token) => token.info.expiresAt === undefined || token.info.expiresAt > now).length };
    }
    if (tokens.refresh === undefined) return { kind: 'saved', accessToken, revoked };
    const refreshToken: RefreshTokenInfo = {
      tokenId: this.data.nextId(),
      ...(tokens.userId === undefined ? {} : { userId: tokens.userId }),
      clientId: tokens.clientId,
      scopes: [...tokens.scopes],
      expiresAt: tokens.refresh.expiresAt,
      familyId,
      dateCreated: this.data.now(),
    };
    this.data.refreshTokens.push({ info: refreshToken, tokenHash: tokens.refresh.tokenHash, revoked: false, used: false });
    return { kind: 'saved', accessToken, refreshToken: { ...refreshToken }, revoked };
  }

  async findAccessToken(tokenHash: string): Promise<StoredAccessToken | undefined> {
    const found = this.data.accessTokens.find((token) => token.info.tokenHash === tokenHash);
    return found && { token: { ...found.info }, revoked: found.revoked || this.data.families.get(found.familyId)!.revoked };
  }

  async findRefreshToken(tokenHash: string): Promise<StoredRefreshToken | undefined> {
    const found = this.data.refreshTokens.find((token) => token.tokenHash === tokenHash);
    return found && { token: { ...found.info }, revoked: found.revoked || this.data.families.get(found.info.familyId)!.revoked, used: found.used };
  }

  async revokeAccessToken(tokenId: string): Promise<Revoked> {
    const found = this.data.accessTokens.find((token) => token.info.tokenId === tokenId && !token.revoked);
    if (!found) return { accessTokenHashes: [], count: 0 };
    found.revoked = true;
    return { accessTokenHashes: [found.info.tokenHash], count: 1 };
  }

  async revokeFamily(grantId: string): Promise<Revoked> {
    return this.data.revokeFamilies((family) => family.id === grantId);
  }

  async revokeFamiliesOfCode(codeId: string): Promise<Revoked> {
    return this.data.revokeFamilies((family) => family.authorizationCodeId === codeId);
  }

  async revokeFamiliesOfUser(userId: string): Promise<Revoked> {
    return this.data.revokeFamilies((family) => family.userId === userId);
  }

  /** Deletes tokens that expired before `before` (revocation times are not kept here: a revoked token goes once it expires). */
  async pruneInactive(before: Date, limit: number): Promise<Pruned> {
    const access = this.data.accessTokens.filter((token) => token.info.expiresAt !== undefined && token.info.expiresAt < before).slice(0, limit);
    const refresh = this.data.refreshTokens.filter((token) => token.info.expiresAt < before).slice(0, limit);
    const codes = this.data.codes.filter((code) => code.code.expiresAt < before).slice(0, limit);
    removeWhere(this.data.accessTokens, (token) => access.includes(token));
    removeWhere(this.data.refreshTokens, (token) => refresh.includes(token));
    removeWhere(this.data.codes, (code) => codes.includes(code));
    const touched = new Set([...access.map((token) => token.familyId), ...refresh.map((token) => token.info.familyId)]);
    const emptied = [...touched].filter((id) => !this.data.accessTokens.some((token) => token.familyId === id) && !this.data.refreshTokens.some((token) => token.info.familyId === id));
    for (const id of emptied) this.data.families.delete(id);
    return { accessTokens: access.length, refreshTokens: refresh.length, authorizationCodes: codes.length, families: emptied.length };
  }

  async createPersonalToken(input: { userId: string; name: string; scopes: string[]; tokenHash: string; expiresAt?: Date }, maxActive: number): Promise<PersonalToken | undefined> {
    if ((await this.listPersonalTokens(input.userId)).length >= maxActive) return undefined;
    const family: Family = { id: this.data.nextId(), userId: input.userId, personalName: input.name, revoked: false };
    this.data.families.set(family.id, family);
    const token = this.#storeAccess(family, input.tokenHash, input.scopes, input.expiresAt);
    return toPersonal(token, family);
  }

  async appScopesOfUser(userId: string, clientIds: readonly string[]): Promise<Map<string, string[]>> {
    const now = new Date();
    const scopes = new Map<string, Set<string>>();
    const grant = (familyId: string, tokenScopes: readonly string[]) => {
      const family = this.data.families.get(familyId);
      if (!family || family.revoked || family.userId !== userId || family.clientId === undefined || !clientIds.includes(family.clientId)) return;
      const set = scopes.get(family.clientId) ?? new Set<string>();
      for (const scope of tokenScopes) set.add(scope);
      scopes.set(family.clientId, set);
    };
    for (const token of this.data.accessTokens) if (!token.revoked && (token.info.expiresAt === undefined || token.info.expiresAt > now)) grant(token.familyId, token.info.scopes);
    for (const token of this.data.refreshTokens) if (!token.revoked && !token.used && token.info.expiresAt > now) grant(token.info.familyId, token.info.scopes);
    return new Map([...scopes].map(([clientId, set]) => [clientId, [...set].sort()]));
  }

  async listPersonalTokens(userId: string): Promise<PersonalToken[]> {
    const now = new Date();
    return this.data.accessTokens.flatMap((token) => {
      const family = this.data.families.get(token.familyId)!;
      const active = !token.revoked && !family.revoked && (token.info.expiresAt === undefined || token.info.expiresAt > now);
      return family.userId === userId && family.personalName !== undefined && active ? [toPersonal(token.info, family)] : [];
    });
  }

  async revokePersonalToken(userId: string, tokenId: string): Promise<Revoked> {
    const now = new Date();
    const token = this.data.accessTokens.find((candidate) => candidate.info.tokenId === tokenId && (candidate.info.expiresAt === undefined || candidate.info.expiresAt > now));
    return this.data.revokeFamilies((family) => family.id === token?.familyId && family.userId === userId && family.personalName !== undefined);
  }

  #storeAccess(family: Family, tokenHash: string, scopes: readonly string[], expiresAt: Date | undefined): AccessTokenInfo {
    const info: AccessTokenInfo = {
      tokenId: this.data.nextId(),
      tokenHash,
      ...(family.userId === undefined ? {} : { userId: family.userId }),
      ...(family.clientId === undefined ? {} : { clientId: family.clientId }),
      scopes: [...scopes],
      ...(expiresAt === undefined ? {} : { expiresAt }),
      personal: family.personalName !== undefined,
      dateCreated: this.data.now(),
    };
    this.data.accessTokens.push({ info, familyId: family.id, revoked: false });
    return { ...info };
  }

  /** Revokes the active families of `clientId` and `userId` beyond the `keep` whose latest access token is newest. */
  #makeRoom(clientId: string, userId: string | undefined, keep: number): Revoked {
    const now = new Date();
    const latest = (familyId: string) => Math.max(0, ...this.data.accessTokens.filter((token) => token.familyId === familyId).map((token) => token.info.dateCreated.getTime()));
    const active = [...this.data.families.values()]
      .filter((family) => family.clientId === clientId && family.userId === userId && family.personalName === undefined && !family.revoked)
      .filter(
        (family) =>
          this.data.accessTokens.some((token) => token.familyId === family.id && !token.revoked && token.info.expiresAt !== undefined && token.info.expiresAt > now) ||
          this.data.refreshTokens.some((token) => token.info.familyId === family.id && !token.revoked && !token.used && token.info.expiresAt > now),
      )
      .sort((a, b) => latest(b.id) - latest(a.id) || Number(b.id) - Number(a.id));
    const beyond = new Set(active.slice(Math.max(keep, 0)).map((family) => family.id));
    return this.data.revokeFamilies((family) => beyond.has(family.id));
  }
}

function toPersonal(token: AccessTokenInfo, family: Family): PersonalToken {
  return {
    id: token.tokenId,
    userId: family.userId!,
    name: family.personalName ?? '',
    scopes: [...token.scopes],
    dateCreated: token.dateCreated,
    ...(token.expiresAt === undefined ? {} : { expiresAt: token.expiresAt }),
  };
}

/** A RevocationNotifier that records each notice in `data.notices`. */
export class RecordingRevocationNotifier implements RevocationNotifier {
  constructor(private readonly data: MemoryUsersData) {}

  async notify(tokenHashes: readonly string[]): Promise<void> {
    this.data.notices.push([...tokenHashes]);
  }
}

/** The services of the users domain over one fresh memory store, and the store itself to arrange and inspect. */
export interface MemoryUsers {
  data: MemoryUsersData;
  accounts: AccountService;
  follows: FollowService;
  clients: OAuthClientService;
  tokens: OAuthTokenService;
  personalTokens: PersonalTokenService;
}

/** Wires the users services to memory repositories, as createUsersServices wires the real ones. */
export function memoryUsers(): MemoryUsers {
  const data = new MemoryUsersData();
  const users = new MemoryUserRepository(data);
  const tokens = new MemoryTokenRepository(data);
  const clients = new MemoryOAuthClientRepository(data);
  const notifier = new RecordingRevocationNotifier(data);
  return {
    data,
    accounts: new AccountService(users, new MemorySignInThrottles(data)),
    follows: new FollowService(new MemoryFollowRepository(data), users),
    clients: new OAuthClientService(clients, users, notifier),
    tokens: new OAuthTokenService(tokens, new MemoryAuthorizationCodeRepository(data), clients, users, notifier),
    personalTokens: new PersonalTokenService(tokens, users, notifier),
  };
}
