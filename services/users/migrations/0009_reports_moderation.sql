-- Reports and the operators' moderation queue (docs/api/safety.md, "Reports and moderation").
-- One open queue entry (report_cases) per reported item: reports of the item while it is open join
-- it, one per reporter, and its count is the number of its reports. Resolving an entry closes it
-- (a later report of the same item opens a new one). Every operator action is a row of
-- moderation_actions: who, when, what, why.

-- A suspended account: its tokens are revoked and it can no longer sign in or be issued tokens.
ALTER TABLE users ADD COLUMN suspended_at timestamptz;

CREATE TABLE report_cases (
  id           bigserial PRIMARY KEY,
  -- The JSON:API type of the reported item: story, chapter, comment, blog_post, private_message, user.
  target_type  text        NOT NULL CHECK (target_type IN ('story', 'chapter', 'comment', 'blog_post', 'private_message', 'user')),
  target_id    bigint      NOT NULL,
  -- The account the item belongs to (author, sender, the reported user); NULL when unknown.
  owner_id     bigint,
  -- The item as the first reporter saw it (JSON written by the gateway).
  snapshot     text        NOT NULL CHECK (octet_length(snapshot) <= 262144),
  num_reports  integer     NOT NULL DEFAULT 0 CHECK (num_reports >= 0),
  date_opened  timestamptz NOT NULL DEFAULT now(),
  -- NULL while open.
  date_resolved timestamptz
);

-- At most one open entry per item.
CREATE UNIQUE INDEX report_cases_open_target_key ON report_cases (target_type, target_id) WHERE date_resolved IS NULL;
-- The queue: open entries, oldest first.
CREATE INDEX report_cases_open_idx ON report_cases (date_opened, id) WHERE date_resolved IS NULL;

CREATE TABLE reports (
  id            bigserial PRIMARY KEY,
  case_id       bigint      NOT NULL REFERENCES report_cases (id) ON DELETE CASCADE,
  reporter_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  reason        text        NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 64),
  details       text        NOT NULL DEFAULT '' CHECK (char_length(details) <= 2000),
  date_reported timestamptz NOT NULL DEFAULT now(),
  -- One reporter counts once per entry.
  CONSTRAINT reports_case_reporter_key UNIQUE (case_id, reporter_id)
);

CREATE TABLE moderation_actions (
  id          bigserial PRIMARY KEY,
  case_id     bigint      REFERENCES report_cases (id) ON DELETE SET NULL,
  -- The account acted on (suspend), when there is one.
  user_id     bigint,
  action      text        NOT NULL CHECK (action IN ('dismiss', 'hide', 'suspend')),
  operator    text        NOT NULL CHECK (char_length(operator) BETWEEN 1 AND 64),
  reason      text        NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 2000),
  date_taken  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX moderation_actions_case_idx ON moderation_actions (case_id, date_taken);
