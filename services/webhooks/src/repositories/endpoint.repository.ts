import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { Endpoint } from '../domain/endpoint.js';
import type { EventType } from '../domain/event-types.js';

interface EndpointRow {
  id: string;
  app_id: string;
  url: string;
  event_types: string[];
  active: boolean;
  disabled_at: Date | null;
  previous_secret_expires_at: Date | null;
  date_created: Date;
  date_modified: Date;
}

const COLUMNS = 'id::text AS id, app_id, url, event_types, active, disabled_at, previous_secret_expires_at, date_created, date_modified';

function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    appId: row.app_id,
    url: row.url,
    eventTypes: row.event_types as EventType[],
    active: row.active,
    ...(row.disabled_at === null ? {} : { disabledAt: row.disabled_at }),
    // A grace period that has ended is as if there were none.
    ...(row.previous_secret_expires_at === null || row.previous_secret_expires_at <= new Date() ? {} : { previousSecretExpiresAt: row.previous_secret_expires_at }),
    dateCreated: row.date_created,
    dateModified: row.date_modified,
  };
}

/** The changes of an update; unset fields stay. */
export interface EndpointChanges {
  url?: string;
  eventTypes?: readonly EventType[];
  active?: boolean;
}

/** The sealed signing secrets of an endpoint: the current one, and the previous one while its grace period lasts. */
export interface SealedSecrets {
  current: Buffer;
  previous?: Buffer;
}

/** Endpoints in the webhooks schema. */
export class EndpointRepository {
  constructor(private readonly db: pg.Pool) {}

  /** Inserts an endpoint unless the app has `max` already (then undefined), in one transaction locked per app. */
  async create(input: { appId: string; ownerUserId: string; url: string; eventTypes: readonly EventType[]; active: boolean; sealedSecret: Buffer }, max: number): Promise<Endpoint | undefined> {
    return withPgErrors(() =>
      withTransaction(this.db as pg.Pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhooks:app:${input.appId}`]);
        const { rows: counted } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM endpoints WHERE app_id = $1', [input.appId]);
        if ((counted[0]?.n ?? 0) >= max) return undefined;
        const { rows } = await client.query<EndpointRow>(
          `INSERT INTO endpoints (app_id, owner_user_id, url, event_types, active, secret_sealed) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
          [input.appId, input.ownerUserId, input.url, [...input.eventTypes], input.active, input.sealedSecret],
        );
        return toEndpoint(rows[0]!);
      }),
    );
  }

  /** The endpoint `id` of app `appId`, or undefined. */
  async find(appId: string, id: string): Promise<Endpoint | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<EndpointRow>(`SELECT ${COLUMNS} FROM endpoints WHERE id = $1 AND app_id = $2`, [id, appId]);
      return rows[0] && toEndpoint(rows[0]);
    });
  }

  /** Every endpoint of the app, oldest first. */
  async list(appId: string): Promise<Endpoint[]> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<EndpointRow>(`SELECT ${COLUMNS} FROM endpoints WHERE app_id = $1 ORDER BY id`, [appId]);
      return rows.map(toEndpoint);
    });
  }

  /**
   * Applies `changes`; activating clears disabled_at and the failure run, deactivating fails the
   * endpoint's pending deliveries (they would never be sent). Undefined when there is no such endpoint.
   */
  async update(appId: string, id: string, changes: EndpointChanges): Promise<Endpoint | undefined> {
    return withPgErrors(() =>
      withTransaction(this.db as pg.Pool, async (client) => {
        const { rows } = await client.query<EndpointRow>(
          `UPDATE endpoints SET
             url = coalesce($3, url),
             event_types = coalesce($4, event_types),
             active = coalesce($5, active),
             disabled_at = CASE WHEN $5 IS TRUE THEN NULL ELSE disabled_at END,
             failing_since = CASE WHEN $5 IS TRUE AND NOT active THEN NULL ELSE failing_since END,
             date_modified = now()
           WHERE id = $1 AND app_id = $2 RETURNING ${COLUMNS}`,
          [id, appId, changes.url ?? null, changes.eventTypes ? [...changes.eventTypes] : null, changes.active ?? null],
        );
        if (rows[0] && changes.active === false) {
          await client.query(`UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'endpoint_inactive' WHERE endpoint_id = $1 AND status = 'pending'`, [id]);
        }
        return rows[0] && toEndpoint(rows[0]);
      }),
    );
  }

  /** Deletes the endpoint with its deliveries; false when there was none. */
  async delete(appId: string, id: string): Promise<boolean> {
    return withPgErrors(async () => {
      const { rowCount } = await this.db.query('DELETE FROM endpoints WHERE id = $1 AND app_id = $2', [id, appId]);
      return (rowCount ?? 0) > 0;
    });
  }

  /** Replaces the secret; the old one stays valid until `previousExpiresAt` (none when it is now or earlier). */
  async rotateSecret(appId: string, id: string, sealedSecret: Buffer, previousExpiresAt: Date): Promise<Endpoint | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<EndpointRow>(
        `UPDATE endpoints SET
           previous_secret_sealed = CASE WHEN $4::timestamptz > now() THEN secret_sealed END,
           previous_secret_expires_at = CASE WHEN $4::timestamptz > now() THEN $4::timestamptz END,
           secret_sealed = $3, date_modified = now()
         WHERE id = $1 AND app_id = $2 RETURNING ${COLUMNS}`,
        [id, appId, sealedSecret, previousExpiresAt],
      );
      return rows[0] && toEndpoint(rows[0]);
    });
  }
}
