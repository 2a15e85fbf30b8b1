import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { OAuthClient } from '../domain/oauth.js';

interface ClientRow {
  id: string;
  name: string;
  redirect_uris: string[];
  allowed_origins: string[];
  confidential: boolean;
  owner_user_id: string | null;
  date_created: Date;
}

const COLUMNS = 'id, name, redirect_uris, allowed_origins, confidential, owner_user_id, date_created';

function toClient(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    name: row.name,
    redirectUris: row.redirect_uris,
    allowedOrigins: row.allowed_origins,
    confidential: row.confidential,
    ...(row.owner_user_id === null ? {} : { ownerUserId: String(row.owner_user_id) }),
    dateCreated: row.date_created,
  };
}

/** A client to store; the secret arrives already hashed (undefined for public clients). */
export interface NewClient {
  id: string;
  name: string;
  redirectUris: string[];
  allowedOrigins: string[];
  confidential: boolean;
  secretHash?: string;
  ownerUserId?: string;
}

/** What deleting a client removed: whether it existed, and the hashes of its access tokens that were still active. */
export interface DeletedClient {
  deleted: boolean;
  revokedTokenHashes: string[];
}

/** SQL access to `oauth_clients`. */
export class OAuthClientRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Stores a new client, unless its owner already owns `maxPerOwner` clients: then nothing is
   * stored and the answer is undefined. The count and the insert happen under a lock on the
   * owner's user row, so concurrent registrations cannot pass the cap together. Operator clients
   * (no owner) are not counted. An unknown owner is FAILED_PRECONDITION (foreign key).
   */
  async create(client: NewClient, maxPerOwner: number): Promise<OAuthClient | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (db) => {
        if (client.ownerUserId !== undefined) {
          // NO KEY UPDATE serializes registrations of one owner without blocking foreign-key checks on the user.
          await db.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [client.ownerUserId]);
          const { rows: owned } = await db.query<{ count: string }>('SELECT count(*) AS count FROM oauth_clients WHERE owner_user_id = $1', [client.ownerUserId]);
          if (Number(owned[0]!.count) >= maxPerOwner) return undefined;
        }
        const { rows } = await db.query<ClientRow>(
          `INSERT INTO oauth_clients (id, name, redirect_uris, allowed_origins, confidential, secret_hash, owner_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
          [client.id, client.name, client.redirectUris, client.allowedOrigins, client.confidential, client.secretHash ?? null, client.ownerUserId ?? null],
        );
        return toClient(rows[0]!);
      });
    });
  }

  /**
   * Makes the operator's public client `client.id` exist with exactly this name and these
   * redirect URIs and origins (created, or updated in place: its codes and tokens stay), in one
   * statement, so that several replicas starting at once agree.
   */
  async ensurePublic(client: Omit<NewClient, 'confidential' | 'secretHash' | 'ownerUserId'>): Promise<OAuthClient> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ClientRow>(
        `INSERT INTO oauth_clients (id, name, redirect_uris, allowed_origins, confidential) VALUES ($1, $2, $3, $4, false)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris, allowed_origins = EXCLUDED.allowed_origins,
           confidential = false, secret_hash = NULL, owner_user_id = NULL
         RETURNING ${COLUMNS}`,
        [client.id, client.name, client.redirectUris, client.allowedOrigins],
      );
      return toClient(rows[0]!);
    });
  }

  /** Whether any client lists `origin` among its allowed origins (the GIN index). */
  async isOriginRegistered(origin: string): Promise<boolean> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query('SELECT 1 FROM oauth_clients WHERE allowed_origins @> ARRAY[$1::text] LIMIT 1', [origin]);
      return rows.length > 0;
    });
  }

  /** The client `id` with its secret hash (undefined for public clients), or undefined. */
  async findWithSecret(id: string): Promise<{ client: OAuthClient; secretHash?: string } | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ClientRow & { secret_hash: string | null }>(`SELECT ${COLUMNS}, secret_hash FROM oauth_clients WHERE id = $1`, [id]);
      const row = rows[0];
      if (!row) return undefined;
      return { client: toClient(row), ...(row.secret_hash === null ? {} : { secretHash: row.secret_hash }) };
    });
  }

  /** Replaces the secret hash of a confidential client. */
  async setSecretHash(id: string, secretHash: string): Promise<void> {
    return withPgErrors(async () => {
      await this.pool.query('UPDATE oauth_clients SET secret_hash = $2 WHERE id = $1 AND confidential', [id, secretHash]);
    });
  }

  /** The clients registered by `ownerUserId`, oldest first. */
  async listByOwner(ownerUserId: string): Promise<OAuthClient[]> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ClientRow>(`SELECT ${COLUMNS} FROM oauth_clients WHERE owner_user_id = $1 ORDER BY date_created, id`, [ownerUserId]);
      return rows.map(toClient);
    });
  }

  /**
   * Deletes client `id` (only if owned by `ownerUserId`, when given) together with its codes and
   * tokens (ON DELETE CASCADE), and reports the hashes of the access tokens that were still
   * active, for the revocation notice.
   */
  async delete(id: string, ownerUserId: string | undefined): Promise<DeletedClient> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `SELECT id FROM oauth_clients WHERE id = $1 AND ($2::bigint IS NULL OR owner_user_id = $2) FOR UPDATE`,
          [id, ownerUserId ?? null],
        );
        if (rows.length === 0) return { deleted: false, revokedTokenHashes: [] };
        const active = await client.query<{ token_hash: string }>(
          `SELECT a.token_hash FROM access_tokens a JOIN token_grants g ON g.id = a.grant_id
           WHERE g.client_id = $1 AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now())`,
          [id],
        );
        await client.query('DELETE FROM oauth_clients WHERE id = $1', [id]);
        return { deleted: true, revokedTokenHashes: active.rows.map((row) => row.token_hash) };
      });
    });
  }
}
