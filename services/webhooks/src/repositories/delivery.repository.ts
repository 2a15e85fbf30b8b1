import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import { endpointDisabled } from '../events/endpoint.events.js';
import type { Delivery, DeliveryStatus } from '../domain/endpoint.js';
import { GroupCommit } from './group-commit.js';

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  last_response_code: number | null;
  last_error: string;
  latency_ms: number | null;
  event_time: Date;
  date_created: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
}

const COLUMNS = `d.id::text AS id, d.endpoint_id::text AS endpoint_id, d.event_id::text AS event_id, ev.type AS event_type, d.status, d.attempts,
  d.last_response_code, d.last_error, d.latency_ms, d.event_time, d.date_created, d.last_attempt_at, d.next_attempt_at`;

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    ...(row.last_response_code === null ? {} : { lastResponseCode: row.last_response_code }),
    lastError: row.last_error,
    ...(row.latency_ms === null ? {} : { latencyMs: row.latency_ms }),
    eventTime: row.event_time,
    dateCreated: row.date_created,
    ...(row.last_attempt_at === null ? {} : { lastAttemptAt: row.last_attempt_at }),
    ...(row.next_attempt_at === null ? {} : { nextAttemptAt: row.next_attempt_at }),
  };
}

/** A delivery claimed for sending, with what its attempt needs. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  appId: string;
  url: string;
  eventId: string;
  /** When the event happened. */
  eventTime: Date;
  attempts: number;
  windowStart: Date;
  payload: string;
  /** For a private event: the user it concerns and the scope the app needs from them. */
  userId?: string;
  scope?: string;
  secretSealed: Buffer;
  previousSecretSealed?: Buffer;
}

/** How one attempt ended, as the log records it. */
export interface AttemptRecord {
  responseCode?: number;
  error: string;
  latencyMs?: number;
}

/** Options of {@link DeliveryRepository.claim}. */
export interface ClaimOptions {
  /** At most this many deliveries. */
  limit: number;
  /** At most this many of one endpoint. */
  perEndpoint: number;
  /** Endpoints to leave out (at their cap of attempts in flight, or of attempts per second, in this process). */
  skipEndpoints: readonly string[];
  /** Endpoints with some attempts in flight here: how many more each may take (less than perEndpoint). */
  remaining: ReadonlyMap<string, number>;
  /** How long a claim holds before another worker may take the delivery. */
  leaseMs: number;
}

/** Deliveries in the webhooks schema: the worker's queue and the endpoints' logs. */
export class DeliveryRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Successes waiting to be written together (recordSuccess). */
  readonly #successes = new GroupCommit<{ deliveryId: string; endpointId: string; responseCode: number | null; latencyMs: number | null }>((successes) =>
    withPgErrors(() =>
      withTransaction(this.pool, async (client) => {
        // The endpoint rows first (in id order), then the deliveries: the order of every transaction that changes both.
        await client.query(
          `UPDATE endpoints SET failing_since = NULL
            WHERE id IN (SELECT id FROM endpoints WHERE id = ANY ($1::bigint[]) AND failing_since IS NOT NULL ORDER BY id FOR UPDATE)`,
          [[...new Set(successes.map((success) => success.endpointId))]],
        );
        await client.query(
          `UPDATE deliveries d SET status = 'succeeded', attempts = d.attempts + 1, last_response_code = s.code, last_error = '', latency_ms = s.latency,
             last_attempt_at = now(), next_attempt_at = NULL, claimed_until = NULL
             FROM unnest($1::bigint[], $2::int[], $3::int[]) AS s (id, code, latency)
            WHERE d.id = s.id AND d.status = 'pending'`,
          [successes.map((success) => success.deliveryId), successes.map((success) => success.responseCode), successes.map((success) => success.latencyMs)],
        );
      }),
    ),
  );

  /**
   * Claims due pending deliveries of active endpoints, oldest first, at most `perEndpoint` per
   * endpoint so that one endpoint's backlog cannot fill a claim (docs/api/webhooks.md, "Retries"):
   * each is leased until now + leaseMs (FOR UPDATE SKIP LOCKED: concurrent workers never claim the
   * same row).
   */
  async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{
        id: string; endpoint_id: string; app_id: string; url: string; event_id: string; event_time: Date; attempts: number; window_start: Date; payload: string;
        user_id: string | null; scope: string | null; secret_sealed: Buffer; previous_secret_sealed: Buffer | null;
      }>(
        `WITH due AS (
           SELECT d.id, d.endpoint_id, d.next_attempt_at FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id AND e.active
            WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.claimed_until IS NULL OR d.claimed_until < now())
              AND NOT (d.endpoint_id = ANY ($3::bigint[]))
            ORDER BY d.next_attempt_at, d.id LIMIT $1 * 20
         ), fair AS (
           SELECT ranked.id FROM (SELECT id, endpoint_id, next_attempt_at, row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS rank FROM due) ranked
             LEFT JOIN unnest($5::bigint[], $6::int[]) AS partial (endpoint_id, remaining) ON partial.endpoint_id = ranked.endpoint_id
            WHERE ranked.rank <= coalesce(partial.remaining, $2) ORDER BY ranked.next_attempt_at, ranked.id LIMIT $1
         ), locked AS (
           -- Checked again on the row as locked: another worker may have claimed it since "due" was read.
           SELECT d.id FROM deliveries d
            WHERE d.id IN (SELECT id FROM fair) AND d.status = 'pending' AND d.next_attempt_at <= now() AND (d.claimed_until IS NULL OR d.claimed_until < now())
            FOR UPDATE SKIP LOCKED
         )
         UPDATE deliveries d SET claimed_until = now() + make_interval(secs => $4::double precision / 1000)
           FROM locked, endpoints e, events ev
          WHERE d.id = locked.id AND e.id = d.endpoint_id AND ev.id = d.event_id
         RETURNING d.id::text AS id, d.endpoint_id::text AS endpoint_id, e.app_id, e.url, d.event_id::text AS event_id, d.event_time, d.attempts, d.window_start, ev.payload,
           ev.user_id::text AS user_id, ev.scope, e.secret_sealed,
           CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_sealed END AS previous_secret_sealed`,
        [options.limit, options.perEndpoint, [...options.skipEndpoints], options.leaseMs, [...options.remaining.keys()], [...options.remaining.values()]],
      );
      return rows
        .map((row) => ({
          id: row.id,
          endpointId: row.endpoint_id,
          appId: row.app_id,
          url: row.url,
          eventId: row.event_id,
          eventTime: row.event_time,
          attempts: row.attempts,
          windowStart: row.window_start,
          payload: row.payload,
          ...(row.user_id === null ? {} : { userId: row.user_id }),
          ...(row.scope === null ? {} : { scope: row.scope }),
          secretSealed: row.secret_sealed,
          ...(row.previous_secret_sealed === null ? {} : { previousSecretSealed: row.previous_secret_sealed }),
        }))
        .sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)));
    });
  }

  /**
   * Records a 2xx: the delivery succeeded, and the endpoint's run of failures ends. Successes that
   * end while one is being written are written together, in one transaction (GroupCommit).
   */
  async recordSuccess(delivery: ClaimedDelivery, attempt: AttemptRecord): Promise<void> {
    await this.#successes.add({ deliveryId: delivery.id, endpointId: delivery.endpointId, responseCode: attempt.responseCode ?? null, latencyMs: attempt.latencyMs ?? null });
  }

  /**
   * Records a failed attempt: pending again until `nextAttemptAt`, or failed when it is undefined
   * (the retry window is used up). Returns since when the endpoint has been failing.
   */
  async recordFailure(delivery: ClaimedDelivery, attempt: AttemptRecord, nextAttemptAt: Date | undefined): Promise<Date | undefined> {
    return withPgErrors(() =>
      withTransaction(this.pool, async (client) => {
        // The endpoint row first, then the delivery: the order of every transaction that changes both.
        const { rows } = await client.query<{ failing_since: Date }>(
          'UPDATE endpoints SET failing_since = coalesce(failing_since, now()) WHERE id = $1 RETURNING failing_since',
          [delivery.endpointId],
        );
        await client.query(
          `UPDATE deliveries SET status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END, attempts = attempts + 1,
             last_response_code = $2, last_error = $5, latency_ms = $3, last_attempt_at = now(), next_attempt_at = $4, claimed_until = NULL
           WHERE id = $1 AND status = 'pending'`,
          [delivery.id, attempt.responseCode ?? null, attempt.latencyMs ?? null, nextAttemptAt ?? null, attempt.error],
        );
        return rows[0]?.failing_since;
      }),
    );
  }

  /** Drops a delivery the app may no longer receive (a private event whose user withdrew the scope): it leaves no trace in the log. */
  async drop(deliveryId: string): Promise<void> {
    await withPgErrors(() => this.pool.query('DELETE FROM deliveries WHERE id = $1', [deliveryId]));
  }

  /** Returns the claim so that another attempt takes the delivery at once (the process is stopping, or the users service did not answer). */
  async release(deliveryId: string, retryAt: Date): Promise<void> {
    await withPgErrors(() => this.pool.query(`UPDATE deliveries SET claimed_until = NULL, next_attempt_at = $2 WHERE id = $1 AND status = 'pending'`, [deliveryId, retryAt]));
  }

  /**
   * Disables an endpoint that failed for the whole window: its pending deliveries fail, and the
   * WebhookEndpointDisabled event for its owner is written to the outbox in the same transaction.
   * Undefined when it was no longer active.
   */
  async disableEndpoint(endpointId: string): Promise<{ appId: string; ownerUserId: string } | undefined> {
    return withPgErrors(() =>
      withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ app_id: string; owner_user_id: string; url: string; disabled_at: Date }>(
          'UPDATE endpoints SET active = false, disabled_at = now(), date_modified = now() WHERE id = $1 AND active RETURNING app_id, owner_user_id::text AS owner_user_id, url, disabled_at',
          [endpointId],
        );
        const row = rows[0];
        if (!row) return undefined;
        await client.query(`UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId]);
        await appendEvent(client, { key: endpointId, payload: endpointDisabled({ endpointId, appId: row.app_id, ownerUserId: row.owner_user_id, url: row.url, disabledAt: row.disabled_at }) });
        return { appId: row.app_id, ownerUserId: row.owner_user_id };
      }),
    );
  }

  /** One page of the endpoint's log, newest first (ids below `beforeId` when given). */
  async list(endpointId: string, options: { status?: DeliveryStatus; beforeId?: string; limit: number }): Promise<Delivery[]> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<DeliveryRow>(
        `SELECT ${COLUMNS} FROM deliveries d JOIN events ev ON ev.id = d.event_id
          WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2) AND ($3::bigint IS NULL OR d.id < $3)
          ORDER BY d.id DESC LIMIT $4`,
        [endpointId, options.status ?? null, options.beforeId ?? null, options.limit],
      );
      return rows.map(toDelivery);
    });
  }

  /** Queues the endpoint's delivery of `eventId` again, due now, with a new retry window; undefined when the log has none. */
  async redeliver(endpointId: string, eventId: string): Promise<Delivery | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<DeliveryRow>(
        `WITH updated AS (
           UPDATE deliveries SET status = 'pending', next_attempt_at = now(), window_start = now(), claimed_until = NULL, date_created = now()
            WHERE endpoint_id = $1 AND event_id = $2 RETURNING *
         )
         SELECT ${COLUMNS} FROM updated d JOIN events ev ON ev.id = d.event_id`,
        [endpointId, eventId],
      );
      return rows[0] && toDelivery(rows[0]);
    });
  }

  /** Deletes finished deliveries, and events without deliveries, older than `before` (at most `limit` of each). */
  async prune(before: Date, limit: number): Promise<number> {
    return withPgErrors(async () => {
      const deliveries = await this.pool.query(
        `DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE status <> 'pending' AND date_created < $1 LIMIT $2)`,
        [before, limit],
      );
      const events = await this.pool.query(
        `DELETE FROM events WHERE id IN (SELECT ev.id FROM events ev WHERE ev.date_created < $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = ev.id) LIMIT $2)`,
        [before, limit],
      );
      return (deliveries.rowCount ?? 0) + (events.rowCount ?? 0);
    });
  }
}
