import type pg from 'pg';
import { type Queryable, withPgErrors, withTransaction } from '@inkwell/pg';
import type { AccessTokenInfo, PersonalToken, RefreshTokenInfo } from '../domain/oauth.js';

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
  /** A new family issued from this code; refused when the code was meanwhile reused. */
  authorizationCodeId?: string;
  /** Rotation: the refresh token being exchanged; the pair joins its family. */
  rotatedFromRefreshId?: string;
}

/**
 * What saving tokens did: saved them, or refused because the code was reused or the refresh
 * token being rotated was used or revoked by a concurrent request.
 */
export type SaveOutcome =
  | { kind: 'saved'; accessToken: AccessTokenInfo; refreshToken?: RefreshTokenInfo }
  | { kind: 'code_reused' }
  | { kind: 'refresh_lost' };

/** What a revocation did: the hashes of the access tokens revoked (for the notice) and how many tokens in all. */
export interface Revoked {
  accessTokenHashes: string[];
  count: number;
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
   * (`code_reused`) and a refresh token used or revoked meanwhile (`refresh_lost`).
   */
  async save(tokens: NewTokens): Promise<SaveOutcome> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        let grantId: string;
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
            const { rows } = await client.query(`SELECT 1 FROM authorization_codes WHERE id = $1 AND reused_at IS NULL FOR SHARE`, [tokens.authorizationCodeId]);
            if (rows.length === 0) return { kind: 'code_reused' } as const;
          }
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
        if (tokens.refresh === undefined) return { kind: 'saved', accessToken } as const;
        const { rows: refreshRows } = await client.query<{ id: string }>(
          `INSERT INTO refresh_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`,
          [tokens.refresh.tokenHash, grantId, tokens.scopes, tokens.refresh.expiresAt],
        );
        const refreshToken = (await findRefresh(client, 'r.id = $1', [refreshRows[0]!.id]))!.token;
        return { kind: 'saved', accessToken, refreshToken } as const;
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
   * Revokes the families matching `where` (on token_grants) and all their tokens in one
   * statement, and reports the access tokens it revoked and how many unexpired tokens it revoked.
   */
  async #revokeGrants(where: string, params: unknown[]): Promise<Revoked> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ hashes: string[] | null; count: string }>(
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
    });
  }
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
