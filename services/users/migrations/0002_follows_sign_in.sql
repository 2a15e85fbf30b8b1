-- Follow relationships. num_followers / num_following of users are kept exact by changing them
-- in the same transaction as the follow row (see FollowRepository).
CREATE TABLE follows (
  id            bigserial   PRIMARY KEY,
  follower_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  followed_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  date_followed timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT follows_pair_key UNIQUE (follower_id, followed_id),
  CONSTRAINT follows_not_self CHECK (follower_id <> followed_id)
);

-- Keyset pagination of both directions, in insertion order (date, then id).
CREATE INDEX follows_follower_order_idx ON follows (follower_id, date_followed, id);
CREATE INDEX follows_followed_order_idx ON follows (followed_id, date_followed, id);

-- Sign-in back-off counters: one row per login string (`login:<lower>`) and per account
-- (`user:<id>`). See domain/sign-in-throttle.ts.
CREATE TABLE sign_in_throttles (
  key               text        PRIMARY KEY,
  attempts          integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  window_started_at timestamptz NOT NULL,
  locked_until      timestamptz,
  lockouts          integer     NOT NULL DEFAULT 0 CHECK (lockouts >= 0),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX sign_in_throttles_updated_idx ON sign_in_throttles (updated_at);
