import { withPgErrors, type Queryable } from '@inkwell/pg';
import type { WebhookEvent } from '../domain/webhook-event.js';

/**
 * What the intake writes, in the consumer's transaction (so exactly once per Kafka event): the
 * event with its fixed payload, one pending delivery per matching active endpoint (set-based and
 * idempotent: unique (endpoint, event)), and the copies visibility is derived from.
 */
export class EventIntakeRepository {
  constructor(private readonly db: Queryable) {}

  /** The apps with an active endpoint subscribed to `type`. */
  async subscribedApps(type: string): Promise<string[]> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ app_id: string }>('SELECT DISTINCT app_id FROM endpoints WHERE active AND $1 = ANY (event_types)', [type]);
      return rows.map((row) => row.app_id);
    });
  }

  /**
   * Stores `event` and queues it, due now, for every active endpoint subscribed to its type (of
   * the apps `onlyApps`, when given). Returns how many deliveries were queued; an event no
   * endpoint takes is not stored.
   */
  async enqueue(event: WebhookEvent, scope: string | undefined, payload: string, onlyApps?: readonly string[]): Promise<number> {
    return withPgErrors(async () => {
      if (onlyApps !== undefined && onlyApps.length === 0) return 0;
      const apps = onlyApps === undefined ? null : [...onlyApps];
      const { rows } = await this.db.query<{ taken: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM endpoints WHERE active AND $1 = ANY (event_types) AND ($2::text[] IS NULL OR app_id = ANY ($2::text[]))) AS taken',
        [event.type, apps],
      );
      if (rows[0]?.taken !== true) return 0;
      await this.db.query(
        'INSERT INTO events (id, type, occurred_at, user_id, scope, payload) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING',
        [event.id, event.type, event.occurredAt, event.userId ?? null, event.userId === undefined ? null : (scope ?? null), payload],
      );
      const { rowCount } = await this.db.query(
        `INSERT INTO deliveries (endpoint_id, event_id, event_time, next_attempt_at)
         SELECT id, $1, $2, now() FROM endpoints
          WHERE active AND $3 = ANY (event_types) AND ($4::text[] IS NULL OR app_id = ANY ($4::text[]))
         ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
        [event.id, event.occurredAt, event.type, apps],
      );
      return rowCount ?? 0;
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
