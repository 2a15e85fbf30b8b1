-- The webhooks service's own schema (docs/api/webhooks.md, "Design"): endpoints of apps, the
-- events they may be sent, one delivery per (endpoint, event), and the copies it derives
-- visibility from (known_stories: @inkwell/known-stories; known_bookshelves: shelf privacy).

CREATE TABLE endpoints (
  id                         bigserial   PRIMARY KEY,
  -- The OAuth client_id of the app (the users service owns apps).
  app_id                     text        NOT NULL CHECK (char_length(app_id) BETWEEN 1 AND 100),
  -- The app's owner when the endpoint was made (apps do not change owners): told when it is disabled.
  owner_user_id              bigint      NOT NULL,
  url                        text        NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
  event_types                text[]      NOT NULL CHECK (cardinality(event_types) BETWEEN 1 AND 9),
  active                     boolean     NOT NULL DEFAULT true,
  -- Set when the service disabled it after 3 days of failures.
  disabled_at                timestamptz,
  -- Signing secrets, sealed with WEBHOOK_SECRET_KEY (AES-256-GCM; docs/api/webhooks.md, "Stored secrets").
  secret_sealed              bytea       NOT NULL,
  previous_secret_sealed     bytea,
  previous_secret_expires_at timestamptz,
  -- The first failed attempt since the last success; NULL while it succeeds.
  failing_since              timestamptz,
  date_created               timestamptz NOT NULL DEFAULT now(),
  date_modified              timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX endpoints_app_idx ON endpoints (app_id, id);
-- The fan-out: active endpoints subscribed to an event type.
CREATE INDEX endpoints_event_types_idx ON endpoints USING gin (event_types) WHERE active;

-- Events as deliveries send them: the payload is fixed once, so every attempt sends the same body.
CREATE TABLE events (
  id          uuid        PRIMARY KEY,
  type        text        NOT NULL,
  occurred_at timestamptz NOT NULL,
  -- For a private event, the user it concerns and the scope the app needs from them.
  user_id     bigint,
  scope       text,
  payload     text        NOT NULL,
  date_created timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_private_check CHECK ((user_id IS NULL) = (scope IS NULL))
);

CREATE INDEX events_created_idx ON events (date_created);

CREATE TABLE deliveries (
  id                 bigserial   PRIMARY KEY,
  endpoint_id        bigint      NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  event_id           uuid        NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  status             text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts           integer     NOT NULL DEFAULT 0,
  last_response_code integer,
  last_error         text        NOT NULL DEFAULT '',
  latency_ms         integer,
  event_time         timestamptz NOT NULL,
  -- The start of the current 3-day retry window (queued, or redelivered).
  window_start       timestamptz NOT NULL DEFAULT now(),
  last_attempt_at    timestamptz,
  next_attempt_at    timestamptz,
  -- A worker's lease: the delivery is being sent until then (another worker takes it afterwards).
  claimed_until      timestamptz,
  date_created       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT deliveries_endpoint_event_key UNIQUE (endpoint_id, event_id),
  CONSTRAINT deliveries_pending_check CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);

-- The worker's claim: due pending deliveries, oldest first.
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at, id) WHERE status = 'pending';
-- The log of one endpoint, newest first.
CREATE INDEX deliveries_log_idx ON deliveries (endpoint_id, id DESC);
CREATE INDEX deliveries_event_idx ON deliveries (event_id);

-- The stories copy of @inkwell/known-stories (is a chapter's story published?).
CREATE TABLE known_stories (
  id        bigint      PRIMARY KEY,
  author_id bigint      NOT NULL,
  published boolean     NOT NULL,
  deleted   boolean     NOT NULL DEFAULT false,
  version   timestamptz NOT NULL
);

-- Shelf privacy, from bookshelves.bookshelf.v1 (item events do not carry it).
CREATE TABLE known_bookshelves (
  id       bigint  PRIMARY KEY,
  owner_id bigint  NOT NULL,
  public   boolean NOT NULL,
  deleted  boolean NOT NULL DEFAULT false
);
