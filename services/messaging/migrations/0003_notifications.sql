-- The notifications inbox (docs/api/updates.md, "Notification kinds and visibility" and "Fan-out
-- model"): notifications are written when the events arrive, set-based, from local copies of what
-- the other services own. Ids of users, stories, chapters, comments and posts refer to other
-- services; there are no foreign keys across schemas.

-- The stories as @inkwell/known-stories keeps them (stories.story.v1): who wrote each one and
-- whether it is shown. A notification about a story is visible while its story is published.
-- date_published (the first publication) tells the chapters published before the story, which
-- story_published announces, from those published after it, which chapter_published announces.
CREATE TABLE known_stories (
  id             bigint      PRIMARY KEY,
  author_id      bigint      NOT NULL,
  published      boolean     NOT NULL,
  deleted        boolean     NOT NULL DEFAULT false,
  version        timestamptz NOT NULL,
  date_published timestamptz
);

-- The chapters (stories.chapter.v1), kept the same way (a newer version replaces an older one;
-- deletion is final). A notification about a chapter is visible while its chapter is published.
-- The chapter and story topics are read in no particular order between them, so a chapter is
-- announced when both its own event and its story's publication have been seen, whichever came
-- last: published_at is when the chapter last became published, announced is set once its
-- fan-out is queued (once per chapter).
CREATE TABLE known_chapters (
  id           bigint      PRIMARY KEY,
  story_id     bigint      NOT NULL,
  published    boolean     NOT NULL,
  deleted      boolean     NOT NULL DEFAULT false,
  version      timestamptz NOT NULL,
  published_at timestamptz,
  announced    boolean     NOT NULL DEFAULT false
);
CREATE INDEX known_chapters_story_idx ON known_chapters (story_id) WHERE NOT announced;

-- Who follows whom (users.follow.v1), one row per follow id. Following again after an unfollow is
-- a new follow id, and the events of two follow ids may arrive in any order: an unfollow leaves
-- its row as a tombstone (removed), so a follow seen after its own unfollow stays removed.
CREATE TABLE follows (
  follow_id   bigint  PRIMARY KEY,
  follower_id bigint  NOT NULL,
  followed_id bigint  NOT NULL,
  removed     boolean NOT NULL DEFAULT false
);
-- An author's followers in user-id order: the keyset of a fan-out's chunks.
CREATE INDEX follows_followed_idx ON follows (followed_id, follower_id) WHERE NOT removed;

-- Which users have which story on a shelf (bookshelves.item.v1), one row per item id, with
-- tombstones like follows. The same story on two shelves of one user is two rows and one reader.
CREATE TABLE shelf_items (
  item_id  bigint  PRIMARY KEY,
  owner_id bigint  NOT NULL,
  story_id bigint  NOT NULL,
  removed  boolean NOT NULL DEFAULT false
);
-- A story's readers in user-id order: the keyset of a chapter fan-out's chunks.
CREATE INDEX shelf_items_story_idx ON shelf_items (story_id, owner_id) WHERE NOT removed;

-- One notification of one user. kind is the NotificationKind number of the proto (1
-- chapter_published … 6 blog_post); subject_id is what makes it unique for its kind: the chapter,
-- the story, the follower, the comment, the private message or the blog post.
CREATE TABLE notifications (
  id                 bigserial   PRIMARY KEY,
  user_id            bigint      NOT NULL,
  kind               smallint    NOT NULL CHECK (kind BETWEEN 1 AND 6),
  subject_id         bigint      NOT NULL,
  actor_id           bigint      NOT NULL,
  story_id           bigint,
  chapter_id         bigint,
  comment_id         bigint,
  blog_post_id       bigint,
  private_message_id bigint,
  -- chapter_published: bit 1 the reader follows the author, bit 2 the story is on their shelf.
  reasons            smallint    NOT NULL DEFAULT 0,
  -- When the event happened (its occurred_at), in milliseconds like every date of the API.
  created_at         timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  read_at            timestamptz,
  -- Nobody is notified of what they did themselves.
  CHECK (actor_id <> user_id)
);

-- Once per user and subject: a redelivered or replayed event inserts nothing (ON CONFLICT DO
-- NOTHING). Led by the subject so that the notifications of a deleted comment, blog post or
-- chapter are found without another index.
CREATE UNIQUE INDEX notifications_subject_key ON notifications (kind, subject_id, user_id);
-- The inbox page: a user's notifications newest first (keyset on id).
CREATE INDEX notifications_inbox_idx ON notifications (user_id, id DESC);
-- Unread counts and marking read: only the unread rows, which stay few.
CREATE INDEX notifications_unread_idx ON notifications (user_id, id) INCLUDE (story_id, chapter_id, created_at) WHERE read_at IS NULL;
-- Retention: rows are appended roughly in time order, so a block-range index finds the old
-- ones at almost no cost per insert.
CREATE INDEX notifications_created_brin ON notifications USING brin (created_at);

-- Fan-outs to do (chapter_published, story_published, blog_post): written by the event's
-- consumer, then worked off in chunks of recipients by user id, each chunk one committed
-- INSERT … SELECT that moves after_user_id on. A fan-out is split into `slices` rows by user id
-- modulo slices, so that several workers (of one replica or several) share a large audience.
-- Unique per subject and slice like the notifications.
CREATE TABLE notification_fanouts (
  id            bigserial   PRIMARY KEY,
  kind          smallint    NOT NULL CHECK (kind IN (1, 2, 6)),
  subject_id    bigint      NOT NULL,
  slices        smallint    NOT NULL DEFAULT 1 CHECK (slices BETWEEN 1 AND 64),
  slice         smallint    NOT NULL DEFAULT 0 CHECK (slice >= 0 AND slice < slices),
  actor_id      bigint      NOT NULL,
  story_id      bigint,
  chapter_id    bigint,
  blog_post_id  bigint,
  occurred_at   timestamptz NOT NULL,
  -- Recipients of this slice up to this user id are done.
  after_user_id bigint      NOT NULL DEFAULT 0,
  -- Chunks go to the fan-out that waited longest, so a large one does not hold up the others.
  turn_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (kind, subject_id, slice)
);
CREATE INDEX notification_fanouts_turn_idx ON notification_fanouts (turn_at);

-- The private feed token of a user (at most one): only its SHA-256 is kept.
CREATE TABLE feed_tokens (
  user_id    bigint      PRIMARY KEY,
  token_hash bytea       NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
);
