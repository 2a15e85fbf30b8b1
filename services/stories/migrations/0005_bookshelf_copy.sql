-- The stories service's copy of bookshelf membership, fed by the bookshelves events (topics
-- bookshelves.bookshelf.v1 and bookshelves.item.v1), for filter[bookshelf], filter[unread] and
-- sort=date_added on GET /stories (docs/api/stories.md, "Bookshelves in story lists"). Events
-- arrive at least once and the two topics are not ordered relative to each other, so every row
-- carries what is needed to ignore a stale or replayed event. No foreign keys: a shelf's items
-- may arrive before the shelf, and a story may be deleted before its items are.

-- One row per shelf ever seen. A deleted shelf stays as a tombstone (deleted = true), so that a
-- late or replayed event can never bring it back; shelf ids are never reused.
CREATE TABLE bookshelves (
  id            bigint      PRIMARY KEY,
  owner_id      bigint      NOT NULL,
  private       boolean     NOT NULL,
  -- The version of the copy: the snapshot's date_modified, then the event's occurred_at. An
  -- event whose version is older than the row's changes nothing.
  date_modified timestamptz NOT NULL,
  event_time    timestamptz NOT NULL,
  deleted       boolean     NOT NULL DEFAULT false
);

-- One row per item id ever seen. Adding a story again after removing it creates a new item id,
-- and the events of the two ids can arrive in either order, so several live rows of one
-- (shelf, story) can exist for a moment: `current` marks the one lists use (the live row added
-- last), at most one per pair. A removed item stays as a tombstone (removed = true, never
-- current) so that a replayed BookshelfItemAdded cannot bring it back.
CREATE TABLE bookshelf_items (
  id           bigint      PRIMARY KEY,
  bookshelf_id bigint      NOT NULL,
  story_id     bigint      NOT NULL,
  read         boolean     NOT NULL,
  date_added   timestamptz NOT NULL,
  -- occurred_at of the event that last wrote `read`; an older one changes nothing.
  event_time   timestamptz NOT NULL,
  removed      boolean     NOT NULL DEFAULT false,
  current      boolean     NOT NULL DEFAULT false,
  CHECK (NOT (removed AND current))
);
-- Choosing the current item of a pair.
CREATE INDEX bookshelf_items_live_idx ON bookshelf_items (bookshelf_id, story_id) WHERE NOT removed;
-- filter[bookshelf] under the other sorts (a probe per story), and one current item per pair.
CREATE UNIQUE INDEX bookshelf_items_current_key ON bookshelf_items (bookshelf_id, story_id) WHERE current;
-- sort=date_added: an ordered walk of the shelf, ties by item id, story id carried along so the
-- walk reads no item rows; scanned backwards for the other direction.
CREATE INDEX bookshelf_items_date_added_idx ON bookshelf_items (bookshelf_id, date_added, id) INCLUDE (story_id) WHERE current;
-- The same for filter[unread]=true, so a mostly-read shelf is not walked item by item.
CREATE INDEX bookshelf_items_unread_idx ON bookshelf_items (bookshelf_id, date_added, id) INCLUDE (story_id) WHERE current AND NOT read;
