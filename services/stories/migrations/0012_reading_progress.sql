-- Reading progress (docs/api/stories.md, "Reading progress"): which chapters each user has marked
-- read, and per user and story the time of their last mark or unmark, the reading list's order.
-- Counts are never stored: they come from the story's published chapters as they are when the list
-- is read, so a chapter published, unpublished or deleted later counts (or stops counting) at once.

-- One row per user and chapter marked read. Keyed by user and story first: a reading-list page
-- reads each of its stories' marks as one slice of this key.
CREATE TABLE chapter_reads (
  user_id    bigint      NOT NULL,
  story_id   bigint      NOT NULL,
  chapter_id bigint      NOT NULL REFERENCES chapters (id) ON DELETE CASCADE,
  date_read  timestamptz NOT NULL,
  PRIMARY KEY (user_id, story_id, chapter_id)
);
-- A chapter's deletion removes its marks (the foreign key's cascade looks them up by chapter).
CREATE INDEX chapter_reads_chapter_idx ON chapter_reads (chapter_id);

-- One row per user and story with a chapter marked read: the reading list, walked newest first.
CREATE TABLE reading_progress (
  user_id        bigint      NOT NULL,
  story_id       bigint      NOT NULL REFERENCES stories (id) ON DELETE CASCADE,
  date_last_read timestamptz NOT NULL,
  PRIMARY KEY (user_id, story_id)
);
CREATE INDEX reading_progress_recent_idx ON reading_progress (user_id, date_last_read DESC, story_id DESC);
-- A story's deletion removes its rows (the foreign key's cascade looks them up by story).
CREATE INDEX reading_progress_story_idx ON reading_progress (story_id);
