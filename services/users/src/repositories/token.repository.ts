import type pg from 'pg';
import { type Queryable, withPgErrors, withTransaction } from '@inkwell/pg';
import type { AccessTokenInfo, PersonalToken, RefreshTokenInfo } from '../domain/oauth.js';
import { ACTIVE_AUTHORIZATIONS } from './authorization.repository.js';

interface AccessRow {
  id: string;
  token_hash: string;
  scopes: string[];
  expires_at: Date | null;
  date_created: Date;
  revoked: boolean;
  client_id: string | null;
  user_id: string | null;
  personal_name: string | null;
}

interface RefreshRow {
  id: string;
  scopes: string[];
  expires_at: Date;
  date_created: Date;
  used_at: Date | null;
  revoked: boolean;
  grant_id: string;
  client_id: string;
  user_id: string | null;
}

const ACCESS_COLUMNS = `a.id, a.token_hash, a.scopes, a.expires_at, a.date_created, (a.revoked_at IS NOT NULL OR g.revoked_at IS NOT NULL) AS revoked,
  g.client_id, g.user_id, g.personal_name`;
const REFRESH_COLUMNS = `r.id, r.scopes, r.expires_at, r.date_created, r.used_at, (r.revoked_at IS NOT NULL OR g.revoked_at IS NOT NULL) AS revoked,
  r.grant_id, g.client_id, g.user_id`;

function toAccess(row: AccessRow): AccessTokenInfo {
  return {
    tokenId: String(row.id),
    tokenHash: row.token_hash,
    ...(row.user_id === null ? {} : { userId: String(row.user_id) }),
    ...(row.client_id === null ? {} : { clientId: row.client_id }),
    scopes: row.scopes,
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    personal: row.personal_name !== null,
    dateCreated: row.date_created,
  };
}

function toRefresh(row: RefreshRow): RefreshTokenInfo {
  return {
    tokenId: String(row.id),
    ...(row.user_id === null ? {} : { userId: String(row.user_id) }),
    clientId: row.client_id,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    familyId: String(row.grant_id),
    dateCreated: row.date_created,
  };
}

function toPersonal(row: AccessRow): PersonalToken {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    name: row.personal_name ?? '',
    scopes: row.scopes,
    dateCreated: row.date_created,
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
  };
}

/** A stored access token with its revocation state (expiry is the service's to judge). */
export interface StoredAccessToken {
  token: AccessTokenInfo;
  revoked: boolean;
}

/** A stored refresh token with its state. */
export interface StoredRefreshToken {
  token: RefreshTokenInfo;
  revoked: boolean;
  used: boolean;
}

/** Tokens to store (hashes only) and what they belong to. */
export interface NewTokens {
  accessTokenHash: string;
  accessExpiresAt: Date;
  refresh?: { tokenHash: string; expiresAt: Date };
  clientId: string;
  userId?: string;
  scopes: string[];
  /** A new family issued from this code; refused when the code was meanwhile reused, or is another client's or user's. */
  authorizationCodeId?: string;
  /** Rotation: the refresh token being exchanged; the pair joins its family. */
  rotatedFromRefreshId?: string;
  /**
   * A new family (no rotation) makes room for itself: at most this many active families of the
   * client and user (or of the client alone, for app-only tokens) remain, the new one included.
   */
  maxActiveFamilies: number;
}

/**
 * What saving tokens did: saved them (with what that revoked: the family's earlier access token
 * on rotation, the families over the cap for a new family), or refused because the code was
 * reused or issued to another client or user, or the refresh token being rotated was used or
 * revoked by a concurrent request.
 */
export type SaveOutcome =
  | { kind: 'saved'; accessToken: AccessTokenInfo; refreshToken?: RefreshTokenInfo; revoked: Revoked }
  | { kind: 'code_reused' }
  | { kind: 'code_mismatch' }
  | { kind: 'refresh_lost' };

/** What a revocation did: the hashes of the access tokens revoked (for the notice) and how many tokens in all. */
export interface Revoked {
  accessTokenHashes: string[];
  count: number;
}

/** What one pruning batch deleted, per table. */
export interface Pruned {
  accessTokens: number;
  refreshTokens: number;
  authorizationCodes: number;
  /** Families left without any token. */
  families: number;
}

/**
 * SQL access to token families (`token_grants`), `access_tokens` and `refresh_tokens`, personal
 * tokens included (a personal token is a family of one access token without a client). Every
 * token is looked up by its hash.
 */
export class TokenRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Saves an access token (and refresh token) in a new family, or in the family of the refresh
   * token being rotated, which is marked used in the same transaction. The two race conditions
   * a caller cannot see are decided here under row locks: a code flagged as reused
   * (`code_reused`) and a refresh token used or revoked meanwhile (`refresh_lost`). A code whose
   * client or user is not the tokens' is `code_mismatch`.
   *
   * A rotation revokes the family's earlier access tokens (the one issued with the refresh token
   * being exchanged). A new family first locks the user's row (the client's row for app-only
   * tokens), so that concurrent issuances count each other, and revokes the active families
   * beyond `maxActiveFamilies - 1`, least recently issued first. What was revoked is in the
   * outcome, for the caller to announce once the transaction has committed.
   */
  async save(tokens: NewTokens): Promise<SaveOutcome> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        let grantId: string;
        let revoked: Revoked = { accessTokenHashes: [], count: 0 };
        if (tokens.rotatedFromRefreshId !== undefined) {
          const { rows } = await client.query<{ grant_id: string }>(
            `UPDATE refresh_tokens r SET used_at = now() FROM token_grants g
             WHERE r.id = $1 AND g.id = r.grant_id AND r.used_at IS NULL AND r.revoked_at IS NULL AND g.revoked_at IS NULL
             RETURNING r.grant_id`,
            [tokens.rotatedFromRefreshId],
          );
          if (!rows[0]) return { kind: 'refresh_lost' } as const;
          grantId = String(rows[0].grant_id);
        } else {
          if (tokens.authorizationCodeId !== undefined) {
            // FOR SHARE: a concurrent reuse flag (UPDATE) waits for this transaction, then revokes what it issued.
            const { rows } = await client.query<{ client_id: string; user_id: string }>(
              `SELECT client_id, user_id FROM authorization_codes WHERE id = $1 AND reused_at IS NULL FOR SHARE`,
              [tokens.authorizationCodeId],
            );
            if (!rows[0]) return { kind: 'code_reused' } as const;
            if (rows[0].client_id !== tokens.clientId || String(rows[0].user_id) !== tokens.userId) return { kind: 'code_mismatch' } as const;
          }
          revoked = await makeRoom(client, tokens.clientId, tokens.userId, tokens.maxActiveFamilies - 1);
          const { rows } = await client.query<{ id: string }>(
            `INSERT INTO token_grants (client_id, user_id, authorization_code_id) VALUES ($1, $2, $3) RETURNING id`,
            [tokens.clientId, tokens.userId ?? null, tokens.authorizationCodeId ?? null],
          );
          grantId = String(rows[0]!.id);
        }
        const { rows: accessRows } = await client.query<{ id: string }>(
          `INSERT INTO access_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`,
          [tokens.accessTokenHash, grantId, tokens.scopes, tokens.accessExpiresAt],
        );
        const accessToken = (await findAccess(client, 'a.id = $1', [accessRows[0]!.id]))!.token;
        if (tokens.rotatedFromRefreshId !== undefined) {
          const { rows: earlier } = await client.query<{ token_hash: string; active: boolean }>(
            `UPDATE access_tokens SET revoked_at = now() WHERE grant_id = $1 AND id <> $2 AND revoked_at IS NULL
             RETURNING token_hash, (expires_at IS NULL OR expires_at > now()) AS active`,
            [grantId, accessToken.tokenId],
          );
          revoked = { accessTokenHashes: earlier.map((row) => row.token_hash), count: earlier.filter((row) => row.active).length };
        }
        if (tokens.refresh === undefined) return { kind: 'saved', accessToken, revoked } as const;
        const { rows: refreshRows } = await client.query<{ id: string }>(
          `INSERT INTO refresh_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`,
          [tokens.refresh.tokenHash, grantId, tokens.scopes, tokens.refresh.expiresAt],
        );
        const refreshToken = (await findRefresh(client, 'r.id = $1', [refreshRows[0]!.id]))!.token;
        return { kind: 'saved', accessToken, refreshToken, revoked } as const;
      });
    });
  }

  /** The access token (OAuth or personal) with this hash, or undefined. */
  async findAccessToken(tokenHash: string): Promise<StoredAccessToken | undefined> {
    return withPgErrors(async () => {
      return await findAccess(this.pool, 'a.token_hash = $1', [tokenHash]);
    });
  }

  /** The refresh token with this hash, or undefined. */
  async findRefreshToken(tokenHash: string): Promise<StoredRefreshToken | undefined> {
    return withPgErrors(async () => {
      return await findRefresh(this.pool, 'r.token_hash = $1', [tokenHash]);
    });
  }

  /** Revokes one access token by id; reports it when it was not revoked before. */
  async revokeAccessToken(tokenId: string): Promise<Revoked> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ token_hash: string }>(
        `UPDATE access_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING token_hash`,
        [tokenId],
      );
      return { accessTokenHashes: rows.map((row) => row.token_hash), count: rows.length };
    });
  }

  /** Revokes the family `grantId` with every token in it. */
  async revokeFamily(grantId: string): Promise<Revoked> {
    return this.#revokeGrants('id = $1', [grantId]);
  }

  /** Revokes every family issued from authorization code `codeId`. */
  async revokeFamiliesOfCode(codeId: string): Promise<Revoked> {
    return this.#revokeGrants('authorization_code_id = $1', [codeId]);
  }

  /** Revokes every family of user `userId`: OAuth tokens of every client, and personal tokens. */
  async revokeFamiliesOfUser(userId: string): Promise<Revoked> {
    return this.#revokeGrants('user_id = $1', [userId]);
  }

  /**
   * Stores a personal token (one access token in a family of its own), unless the user already
   * has `maxActive` active (neither revoked nor expired) personal tokens: then nothing is stored
   * and the answer is undefined. The count and the insert happen under a lock on the user's row,
   * so concurrent requests cannot pass the cap together. An unknown user is FAILED_PRECONDITION.
   */
  async createPersonalToken(input: { userId: string; name: string; scopes: string[]; tokenHash: string; expiresAt?: Date }, maxActive: number): Promise<PersonalToken | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        // NO KEY UPDATE serializes token creation of one user without blocking foreign-key checks on the user.
        await client.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [input.userId]);
        const { rows: active } = await client.query<{ count: string }>(
          `SELECT count(*) AS count FROM access_tokens a JOIN token_grants g ON g.id = a.grant_id
           WHERE g.user_id = $1 AND g.personal_name IS NOT NULL AND a.revoked_at IS NULL AND g.revoked_at IS NULL
             AND (a.expires_at IS NULL OR a.expires_at > now())`,
          [input.userId],
        );
        if (Number(active[0]!.count) >= maxActive) return undefined;
        const { rows } = await client.query<{ id: string }>(`INSERT INTO token_grants (user_id, personal_name) VALUES ($1, $2) RETURNING id`, [input.userId, input.name]);
        const { rows: tokenRows } = await client.query<{ id: string }>(
          `INSERT INTO access_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`,
          [input.tokenHash, rows[0]!.id, input.scopes, input.expiresAt ?? null],
        );
        const { rows: created } = await client.query<AccessRow>(`SELECT ${ACCESS_COLUMNS} FROM access_tokens a JOIN token_grants g ON g.id = a.grant_id WHERE a.id = $1`, [tokenRows[0]!.id]);
        return toPersonal(created[0]!);
      });
    });
  }

  /** User `userId`'s personal tokens that are neither revoked nor expired, oldest first. */
  async listPersonalTokens(userId: string): Promise<PersonalToken[]> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<AccessRow>(
        `SELECT ${ACCESS_COLUMNS} FROM access_tokens a JOIN token_grants g ON g.id = a.grant_id
         WHERE g.user_id = $1 AND g.personal_name IS NOT NULL AND a.revoked_at IS NULL AND g.revoked_at IS NULL
           AND (a.expires_at IS NULL OR a.expires_at > now())
         ORDER BY a.date_created, a.id`,
        [userId],
      );
      return rows.map(toPersonal);
    });
  }

  /** Revokes user `userId`'s personal token `tokenId`; nothing (count 0) when it is not theirs or not active. */
  async revokePersonalToken(userId: string, tokenId: string): Promise<Revoked> {
    return this.#revokeGrants(
      `user_id = $1 AND personal_name IS NOT NULL AND id = (SELECT grant_id FROM access_tokens WHERE id = $2 AND (expires_at IS NULL OR expires_at > now()))`,
      [userId, tokenId],
    );
  }

  /**
   * The scopes `userId` currently grants each of `clientIds` (docs/api/webhooks.md, "Private
   * events"): per app, those of the user's active authorization of it, as the authorized-apps
   * page shows them (ACTIVE_AUTHORIZATIONS, the one definition). Apps without one are left out.
   */
  async appScopesOfUser(userId: string, clientIds: readonly string[]): Promise<Map<string, string[]>> {
    return withPgErrors(async () => {
      if (clientIds.length === 0) return new Map();
      const { rows } = await this.pool.query<{ client_id: string; scopes: string[] }>(`SELECT client_id, scopes FROM (${ACTIVE_AUTHORIZATIONS}) active`, [userId, [...clientIds]]);
      return new Map(rows.map((row) => [row.client_id, row.scopes]));
    });
  }

  /**
   * Deletes one batch of what can no longer be used, each statement at most `limit` rows and
   * skipping rows another sweep holds: access tokens expired or revoked before `before`, refresh
   * tokens expired or revoked before `before` (a used one stays until it expires, so that
   * presenting it again is still reuse), authorization codes expired before `before`, and the
   * families those deletions left without any token.
   */
  async pruneInactive(before: Date, limit: number): Promise<Pruned> {
    return withPgErrors(async () => {
      const access = await this.pool.query<{ grant_id: string }>(
        `DELETE FROM access_tokens WHERE id IN (
           SELECT id FROM access_tokens WHERE expires_at < $1 OR revoked_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING grant_id`,
        [before, limit],
      );
      const refresh = await this.pool.query<{ grant_id: string }>(
        `DELETE FROM refresh_tokens WHERE id IN (
           SELECT id FROM refresh_tokens WHERE expires_at < $1 OR revoked_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING grant_id`,
        [before, limit],
      );
      const codes = await this.pool.query(
        `DELETE FROM authorization_codes WHERE id IN (
           SELECT id FROM authorization_codes WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [before, limit],
      );
      const touched = [...new Set([...access.rows, ...refresh.rows].map((row) => String(row.grant_id)))];
      const families =
        touched.length === 0
          ? 0
          : ((
              await this.pool.query(
                `DELETE FROM token_grants g WHERE g.id = ANY($1)
                   AND NOT EXISTS (SELECT 1 FROM access_tokens a WHERE a.grant_id = g.id)
                   AND NOT EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.grant_id = g.id)`,
                [touched],
              )
            ).rowCount ?? 0);
      return { accessTokens: access.rowCount ?? 0, refreshTokens: refresh.rowCount ?? 0, authorizationCodes: codes.rowCount ?? 0, families };
    });
  }

  async #revokeGrants(where: string, params: unknown[]): Promise<Revoked> {
    return withPgErrors(async () => revokeGrants(this.pool, where, params));
  }
}

/**
 * Revokes the families matching `where` (on token_grants) and all their tokens in one
 * statement, and reports the access tokens it revoked and how many unexpired tokens it revoked.
 */
async function revokeGrants(db: Queryable, where: string, params: unknown[]): Promise<Revoked> {
  const { rows } = await db.query<{ hashes: string[] | null; count: string }>(
    `WITH grants AS (
       UPDATE token_grants SET revoked_at = now() WHERE ${where} AND revoked_at IS NULL RETURNING id
     ), refresh AS (
       UPDATE refresh_tokens SET revoked_at = now()
       WHERE grant_id IN (SELECT id FROM grants) AND revoked_at IS NULL RETURNING used_at, expires_at
     ), access AS (
       UPDATE access_tokens SET revoked_at = now()
       WHERE grant_id IN (SELECT id FROM grants) AND revoked_at IS NULL RETURNING token_hash, expires_at
     )
     SELECT (SELECT array_agg(token_hash) FROM access) AS hashes,
            (SELECT count(*) FROM access WHERE expires_at IS NULL OR expires_at > now())
          + (SELECT count(*) FROM refresh WHERE used_at IS NULL AND expires_at > now()) AS count`,
    params,
  );
  const row = rows[0]!;
  return { accessTokenHashes: row.hashes ?? [], count: Number(row.count) };
}

/**
 * Within the transaction of a new family of `clientId` for `userId` (undefined: app-only): locks
 * the user's row (the client's row for app-only tokens), so that concurrent issuances count each
 * other, and revokes the active families beyond the `keep` issued most recently. A family is
 * active while it has an unexpired, unrevoked access token or an unused, unexpired, unrevoked
 * refresh token; its recency is its latest access token (a refresh counts as use).
 */
async function makeRoom(db: Queryable, clientId: string, userId: string | undefined, keep: number): Promise<Revoked> {
  // NO KEY UPDATE serializes issuance without blocking foreign-key checks on the row.
  if (userId === undefined) await db.query('SELECT 1 FROM oauth_clients WHERE id = $1 FOR NO KEY UPDATE', [clientId]);
  else await db.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
  // Two spellings, so that each finds its rows by an index: a user's few families, or the app's unrevoked app-only ones.
  const owner = userId === undefined ? 'g.user_id IS NULL' : 'g.user_id = $3';
  const { rows } = await db.query<{ id: string }>(
    `SELECT g.id FROM token_grants g
     WHERE g.client_id = $1 AND ${owner} AND g.revoked_at IS NULL
       AND (EXISTS (SELECT 1 FROM access_tokens a WHERE a.grant_id = g.id AND a.revoked_at IS NULL AND a.expires_at > now())
         OR EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.grant_id = g.id AND r.revoked_at IS NULL AND r.used_at IS NULL AND r.expires_at > now()))
     ORDER BY (SELECT max(a.date_created) FROM access_tokens a WHERE a.grant_id = g.id) DESC NULLS LAST, g.id DESC
     OFFSET $2`,
    userId === undefined ? [clientId, Math.max(keep, 0)] : [clientId, Math.max(keep, 0), userId],
  );
  if (rows.length === 0) return { accessTokenHashes: [], count: 0 };
  return revokeGrants(db, 'id = ANY($1)', [rows.map((row) => row.id)]);
}

async function findAccess(db: Queryable, where: string, params: unknown[]): Promise<StoredAccessToken | undefined> {
  const { rows } = await db.query<AccessRow>(`SELECT ${ACCESS_COLUMNS} FROM access_tokens a JOIN token_grants g ON g.id = a.grant_id WHERE ${where}`, params);
  const row = rows[0];
  return row && { token: toAccess(row), revoked: row.revoked };
}

async function findRefresh(db: Queryable, where: string, params: unknown[]): Promise<StoredRefreshToken | undefined> {
  const { rows } = await db.query<RefreshRow>(`SELECT ${REFRESH_COLUMNS} FROM refresh_tokens r JOIN token_grants g ON g.id = r.grant_id WHERE ${where}`, params);
  const row = rows[0];
  return row && { token: toRefresh(row), revoked: row.revoked, used: row.used_at !== null };
}
