import type { Migration } from '@inkwell/pg';

/**
 * The outbox and the consumer dedupe table, created in the service's own schema. Versions are
 * namespaced (`events_NNNN`) so they never collide with a service's numbered files; a later
 * change to these tables is a new entry, never an edit (migrate refuses edited SQL).
 */
export const eventsMigrations: readonly Migration[] = [
  {
    version: 'events_0001',
    name: 'outbox',
    sql: `
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  event_id uuid NOT NULL UNIQUE,
  topic text NOT NULL,
  key text NOT NULL,
  type text NOT NULL,
  payload bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX outbox_unsent_idx ON outbox (id) WHERE sent_at IS NULL;

CREATE TABLE processed_events (
  consumer text NOT NULL,
  event_id uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
CREATE INDEX processed_events_processed_at_idx ON processed_events (processed_at);
`,
  },
];
