-- Blocks and mutes (docs/api/safety.md, "Blocking" and "Muting"): the one source of truth that
-- the services owning each action ask synchronously (RelationsService).

-- A user (blocker) blocking another; a pair exists at most once. The blocked user's id names it.
CREATE TABLE blocks (
  blocker_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  blocked_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  date_created timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT blocks_pkey PRIMARY KEY (blocker_id, blocked_id),
  CONSTRAINT blocks_not_self CHECK (blocker_id <> blocked_id)
);

-- "Does B block A?" (the reverse direction of CheckBlock), and the newest-first pages of a
-- blocker's list.
CREATE INDEX blocks_blocked_idx ON blocks (blocked_id, blocker_id);
CREATE INDEX blocks_blocker_order_idx ON blocks (blocker_id, date_created DESC, blocked_id DESC);

-- A user muting an author or a tag: exactly one target, each at most once per muter. `target`
-- names it as one string: 'u:<user id>' for an author, the tag id ('c:<n>', 'g:<n>') for a tag.
CREATE TABLE mutes (
  id           bigserial   PRIMARY KEY,
  muter_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  target       text        NOT NULL CHECK (target ~ '^(u:[1-9][0-9]{0,18}|[cg]:[1-9][0-9]{0,8})$'),
  author_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
  date_created timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT mutes_target_key UNIQUE (muter_id, target),
  CONSTRAINT mutes_author_matches CHECK ((author_id IS NULL) = (target NOT LIKE 'u:%')),
  CONSTRAINT mutes_not_self CHECK (author_id IS NULL OR author_id <> muter_id)
);

CREATE INDEX mutes_muter_order_idx ON mutes (muter_id, date_created DESC, id DESC);
