import { withPgErrors, type Queryable } from '@inkwell/pg';

/** The NOTIFY channel on which queued deliveries wake the delivery workers. */
export const DELIVERIES_CHANNEL = 'webhooks_deliveries';

/** An active endpoint and what it subscribed to. */
export interface SubscribedEndpoint {
  id: string;
  appId: string;
  eventTypes: readonly string[];
}

/** An event as deliveries send it: for a private one, the user it concerns and the scope an app needs from them. */
export interface StoredEvent {
  id: string;
  type: string;
  occurredAt: Date;
  userId?: string;
  scope?: string;
  payload: string;
}

/** One delivery to queue: an event for an endpoint. */
export interface QueuedDelivery {
  endpointId: string;
  eventId: string;
  eventTime: Date;
}

/**
 * What the intake writes, in the consumer's transaction (so exactly once per Kafka event, a batch
 * of events at a time): the events with their fixed payloads, one pending delivery per matching
 * active endpoint (set-based and idempotent: unique (endpoint, event)), and the copies visibility
 * is derived from.
 */
export class EventIntakeRepository {
  constructor(private readonly db: Queryable) {}

  /** The active endpoints subscribed to any of `types`, with the app each belongs to. */
  async subscribedEndpoints(types: readonly string[]): Promise<SubscribedEndpoint[]> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ id: string; app_id: string; event_types: string[] }>(
        'SELECT id::text AS id, app_id, event_types FROM endpoints WHERE active AND event_types && $1::text[] ORDER BY id',
        [[...types]],
      );
      return rows.map((row) => ({ id: row.id, appId: row.app_id, eventTypes: row.event_types }));
    });
  }

  /**
   * Stores `events` (each with its fixed payload) and queues `deliveries`, due now, in the order
   * given (so that the queue's oldest-first order follows the events'), for the endpoints still
   * active; set-based and idempotent (unique (endpoint, event)). Wakes the delivery workers
   * (NOTIFY {@link DELIVERIES_CHANNEL}, sent on commit). Returns how many deliveries were queued.
   */
  async enqueue(events: readonly StoredEvent[], deliveries: readonly QueuedDelivery[]): Promise<number> {
    if (deliveries.length === 0) return 0;
    return withPgErrors(async () => {
      await this.db.query(
        `INSERT INTO events (id, type, occurred_at, user_id, scope, payload)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::bigint[], $5::text[], $6::text[])
         ON CONFLICT (id) DO NOTHING`,
        [
          events.map((event) => event.id),
          events.map((event) => event.type),
          events.map((event) => event.occurredAt),
          events.map((event) => event.userId ?? null),
          events.map((event) => event.scope ?? null),
          events.map((event) => event.payload),
        ],
      );
      const { rowCount } = await this.db.query(
        `INSERT INTO deliveries (endpoint_id, event_id, event_time, next_attempt_at)
         SELECT queued.endpoint_id, queued.event_id, queued.event_time, now()
           FROM unnest($1::bigint[], $2::uuid[], $3::timestamptz[]) WITH ORDINALITY AS queued (endpoint_id, event_id, event_time, position)
           JOIN endpoints e ON e.id = queued.endpoint_id AND e.active
          ORDER BY queued.position
         ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
        [deliveries.map((delivery) => delivery.endpointId), deliveries.map((delivery) => delivery.eventId), deliveries.map((delivery) => delivery.eventTime)],
      );
      if ((rowCount ?? 0) > 0) await this.db.query('SELECT pg_notify($1, \'\')', [DELIVERIES_CHANNEL]);
      return rowCount ?? 0;
    });
  }

  /**
   * Keeps at most `maxPending` pending deliveries per endpoint of `endpointIds` (docs/api/webhooks.md,
   * "Backlog cap"): the oldest ones beyond it that are not being sent fail with `last_error`
   * `backlog_full`. Returns how many failed, per endpoint that had any.
   */
  async failBeyondBacklog(endpointIds: readonly string[], maxPending: number): Promise<Map<string, number>> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ endpoint_id: string; failed: number }>(
        `WITH beyond AS (
           SELECT old.id FROM unnest($1::bigint[]) AS endpoint (id)
             CROSS JOIN LATERAL (SELECT d.id FROM deliveries d WHERE d.endpoint_id = endpoint.id AND d.status = 'pending' ORDER BY d.id DESC OFFSET $2) old
         ), failed AS (
           UPDATE deliveries d SET status = 'failed', last_error = 'backlog_full', next_attempt_at = NULL, claimed_until = NULL
             FROM beyond WHERE d.id = beyond.id AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
           RETURNING d.endpoint_id
         )
         SELECT endpoint_id::text AS endpoint_id, count(*)::int AS failed FROM failed GROUP BY endpoint_id`,
        [[...endpointIds], maxPending],
      );
      return new Map(rows.map((row) => [row.endpoint_id, row.failed]));
    });
  }

  /** Records a shelf's owner and privacy (deleted: a tombstone). */
  async recordShelf(shelf: { id: string; ownerId: string; public: boolean; deleted: boolean }): Promise<void> {
    await withPgErrors(() =>
      this.db.query(
        `INSERT INTO known_bookshelves (id, owner_id, public, deleted) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET owner_id = EXCLUDED.owner_id, public = EXCLUDED.public, deleted = known_bookshelves.deleted OR EXCLUDED.deleted`,
        [shelf.id, shelf.ownerId, shelf.public, shelf.deleted],
      ),
    );
  }

  /** Whether the shelf is known to be public (an unknown shelf is treated as private). */
  async shelfIsPublic(id: string): Promise<boolean> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ public: boolean }>('SELECT public AND NOT deleted AS public FROM known_bookshelves WHERE id = $1', [id]);
      return rows[0]?.public ?? false;
    });
  }

  /** Whether the story is known to be published (an unknown story is treated as unpublished). */
  async storyIsPublished(id: string): Promise<boolean> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ published: boolean }>('SELECT published AND NOT deleted AS published FROM known_stories WHERE id = $1', [id]);
      return rows[0]?.published ?? false;
    });
  }
}
