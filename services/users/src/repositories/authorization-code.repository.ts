import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { AuthorizationCode } from '../domain/oauth.js';

interface CodeRow {
  id: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string;
  code_challenge_method: string;
  expires_at: Date;
  consumed_at: Date | null;
}

const COLUMNS = 'id, client_id, user_id, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at, consumed_at';

function toCode(row: CodeRow): AuthorizationCode {
  return {
    id: String(row.id),
    clientId: row.client_id,
    userId: String(row.user_id),
    redirectUri: row.redirect_uri,
    scopes: row.scopes,
    codeChallenge: row.code_challenge,
    codeChallengeMethod: row.code_challenge_method,
    expiresAt: row.expires_at,
  };
}

/** A code to store; the code itself arrives already hashed. */
export interface NewAuthorizationCode extends Omit<AuthorizationCode, 'id'> {
  codeHash: string;
}

/** A stored code and whether it was used already. */
export interface StoredAuthorizationCode {
  code: AuthorizationCode;
  consumed: boolean;
}

/**
 * What consuming a code found: nothing, a code that is now consumed by this call, or a code that
 * had been consumed before (now flagged as reused).
 */
export type ConsumeOutcome = { kind: 'unknown' } | { kind: 'consumed'; code: AuthorizationCode } | { kind: 'reused'; code: AuthorizationCode };

/** SQL access to `authorization_codes`. */
export class AuthorizationCodeRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Stores a code. An unknown client or user is FAILED_PRECONDITION (foreign key). */
  async create(code: NewAuthorizationCode): Promise<AuthorizationCode> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<CodeRow>(
        `INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [code.codeHash, code.clientId, code.userId, code.redirectUri, code.scopes, code.codeChallenge, code.codeChallengeMethod, code.expiresAt],
      );
      return toCode(rows[0]!);
    });
  }

  /** The code with this hash, or undefined. */
  async findByHash(codeHash: string): Promise<StoredAuthorizationCode | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<CodeRow>(`SELECT ${COLUMNS} FROM authorization_codes WHERE code_hash = $1`, [codeHash]);
      const row = rows[0];
      return row && { code: toCode(row), consumed: row.consumed_at !== null };
    });
  }

  /**
   * Consumes the code with this hash, atomically (the row is locked): exactly one caller gets
   * `consumed`; every later caller gets `reused`, and the code is flagged so that no token can be
   * issued from it any more (see TokenRepository.save).
   */
  async consume(codeHash: string): Promise<ConsumeOutcome> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<CodeRow>(`SELECT ${COLUMNS} FROM authorization_codes WHERE code_hash = $1 FOR UPDATE`, [codeHash]);
        const row = rows[0];
        if (!row) return { kind: 'unknown' } as const;
        if (row.consumed_at !== null) {
          await client.query('UPDATE authorization_codes SET reused_at = coalesce(reused_at, now()) WHERE id = $1', [row.id]);
          return { kind: 'reused', code: toCode(row) } as const;
        }
        await client.query('UPDATE authorization_codes SET consumed_at = now() WHERE id = $1', [row.id]);
        return { kind: 'consumed', code: toCode(row) } as const;
      });
    });
  }

  /** Flags code `id` as reused (presented after being consumed): no more tokens from it. */
  async flagReuse(id: string): Promise<void> {
    return withPgErrors(async () => {
      await this.pool.query('UPDATE authorization_codes SET reused_at = coalesce(reused_at, now()) WHERE id = $1', [id]);
    });
  }
}
