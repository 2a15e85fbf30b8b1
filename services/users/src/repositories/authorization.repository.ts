import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { Authorization, AuthorizationPosition } from '../domain/authorization.js';

interface AuthorizationRow {
  client_id: string;
  app_name: string;
  scopes: string[];
  date_granted: Date;
  date_last_used: Date;
  date_micros: string;
}

/** One page of authorizations, and the position after it when there is more. */
export interface AuthorizationPage {
  authorizations: Authorization[];
  next?: AuthorizationPosition;
}

/** What revoking an authorization did: the access tokens it revoked (for the notice), and what it was. */
export interface RevokedAuthorization {
  accessTokenHashes: string[];
  authorization: Authorization;
}

/**
 * THE definition of an active authorization (docs/api/accounts.md, "Authorized apps"), which the
 * apps page, revocation and the webhooks' scope checks (TokenRepository.appScopesOfUser) share:
 * the active families of user `$1` with an app, one row per app (`$2`: the apps to keep, or null
 * for all). A family is active while it is unrevoked and has an unexpired, unrevoked access token
 * or an unused, unexpired, unrevoked refresh token (as the cap on active families counts them:
 * TokenRepository). Its scopes are those of those tokens; its last use is its latest access token
 * (issued by the code exchange or a refresh).
 */
export const ACTIVE_AUTHORIZATIONS = `
  WITH families AS (
    SELECT g.id, g.client_id, g.date_created,
           (SELECT max(a.date_created) FROM access_tokens a WHERE a.grant_id = g.id) AS last_issued
    FROM token_grants g
    WHERE g.user_id = $1 AND g.client_id IS NOT NULL AND ($2::text[] IS NULL OR g.client_id = ANY($2::text[])) AND g.revoked_at IS NULL
      AND (EXISTS (SELECT 1 FROM access_tokens a WHERE a.grant_id = g.id AND a.revoked_at IS NULL AND a.expires_at > now())
        OR EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.grant_id = g.id AND r.revoked_at IS NULL AND r.used_at IS NULL AND r.expires_at > now()))
  ), apps AS (
    SELECT f.client_id, min(f.date_created) AS date_granted, max(f.last_issued) AS date_last_used, array_agg(f.id) AS family_ids
    FROM families f GROUP BY f.client_id
  )
  SELECT p.client_id, c.name AS app_name, p.date_granted, coalesce(p.date_last_used, p.date_granted) AS date_last_used,
         (extract(epoch FROM p.date_granted) * 1000000)::bigint::text AS date_micros,
         ARRAY(
           SELECT DISTINCT s FROM (
             SELECT unnest(a.scopes) AS s FROM access_tokens a
             WHERE a.grant_id = ANY(p.family_ids) AND a.revoked_at IS NULL AND a.expires_at > now()
             UNION
             SELECT unnest(r.scopes) FROM refresh_tokens r
             WHERE r.grant_id = ANY(p.family_ids) AND r.revoked_at IS NULL AND r.used_at IS NULL AND r.expires_at > now()
           ) granted ORDER BY s
         ) AS scopes
  FROM apps p JOIN oauth_clients c ON c.id = p.client_id`;

function toAuthorization(row: AuthorizationRow): Authorization {
  return { clientId: row.client_id, appName: row.app_name, scopes: row.scopes, dateGranted: row.date_granted, dateLastUsed: row.date_last_used };
}

/**
 * SQL over the token families (`token_grants`, `access_tokens`, `refresh_tokens`) and codes of
 * the OAuth store, seen per user and app: the apps a user authorized, and revoking one.
 */
export class AuthorizationRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** One page of user `userId`'s active authorizations, oldest grant first (date_granted, then client id), after `after`. */
  async list(userId: string, size: number, after: AuthorizationPosition | undefined): Promise<AuthorizationPage> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<AuthorizationRow>(
        `SELECT * FROM (${ACTIVE_AUTHORIZATIONS}) listed
         WHERE ($3::bigint IS NULL OR (date_granted, client_id) > (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::text))
         ORDER BY date_granted, client_id
         LIMIT $5`,
        [userId, null, after?.dateMicros ?? null, after?.clientId ?? null, size + 1],
      );
      const shown = rows.slice(0, size);
      const last = shown.at(-1);
      return {
        authorizations: shown.map(toAuthorization),
        ...(rows.length > size && last ? { next: { dateMicros: last.date_micros, clientId: last.client_id } } : {}),
      };
    });
  }

  /**
   * Revokes user `userId`'s authorization of app `clientId` in one transaction: every family of
   * theirs with the app and every token in them, and the codes issued to the app for them that
   * are still within their lifetime (they expire now, so a late exchange fails, and one under way
   * cannot save its tokens). Undefined, changing
   * nothing, when they have no active authorization of the app. The user's row is locked first,
   * as issuing a family locks it (TokenRepository.save), so a code exchange cannot slip a new
   * family in between.
   */
  async revoke(userId: string, clientId: string): Promise<RevokedAuthorization | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        await client.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
        const { rows } = await client.query<AuthorizationRow>(ACTIVE_AUTHORIZATIONS, [userId, [clientId]]);
        const row = rows[0];
        if (row === undefined) return undefined;
        const { rows: revoked } = await client.query<{ token_hash: string }>(
          `WITH grants AS (
             UPDATE token_grants SET revoked_at = now() WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING id
           ), refresh AS (
             UPDATE refresh_tokens SET revoked_at = now() WHERE grant_id IN (SELECT id FROM grants) AND revoked_at IS NULL RETURNING id
           )
           UPDATE access_tokens SET revoked_at = now() WHERE grant_id IN (SELECT id FROM grants) AND revoked_at IS NULL RETURNING token_hash`,
          [userId, clientId],
        );
        // Codes still within their lifetime expire now; one consumed by an exchange still under way
        // is also flagged as reused, so that its SaveTokens refuses to issue (code_reused).
        await client.query(
          `UPDATE authorization_codes SET expires_at = now(), reused_at = CASE WHEN consumed_at IS NULL THEN reused_at ELSE coalesce(reused_at, now()) END
           WHERE user_id = $1 AND client_id = $2 AND expires_at > now()`,
          [userId, clientId],
        );
        return { accessTokenHashes: revoked.map((token) => token.token_hash), authorization: toAuthorization(row) };
      });
    });
  }
}
