-- Bookshelves of users (docs/api/bookshelves.md). Counts are maintained in the transaction of
-- every change that moves them (items added, removed, marked read; stories published,
-- unpublished or deleted, by event).
CREATE TABLE bookshelves (
  id            bigserial   PRIMARY KEY,
  owner_id      bigint      NOT NULL,
  name          text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description   text        NOT NULL DEFAULT '' CHECK (octet_length(description) <= 1048576),
  privacy       text        NOT NULL CHECK (privacy IN ('public', 'private')),
  color         text        NOT NULL CHECK (color ~ '^#[0-9a-f]{6}$'),
  -- The API's `order`: the owner's ordering of their shelves, lower first, ties by id.
  position      integer     NOT NULL,
  -- Every item, whatever its story's state: the cap on items per shelf applies to these.
  num_items     integer     NOT NULL DEFAULT 0 CHECK (num_items >= 0),
  -- Items whose story is published, and those of them not read.
  num_stories   integer     NOT NULL DEFAULT 0 CHECK (num_stories >= 0),
  num_unread    integer     NOT NULL DEFAULT 0 CHECK (num_unread BETWEEN 0 AND num_stories),
  -- Millisecond precision, like every date the API shows.
  date_created  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  date_modified timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX bookshelves_owner_idx ON bookshelves (owner_id, position, id);

-- The bookshelves service's copy of the stories it needs to know about, fed by stories.story.v1
-- and by the stories service's GetStory answers when an item is added. `version` is the story's
-- date_modified: a state only replaces one that is not newer. Deleted rows are tombstones.
CREATE TABLE known_stories (
  id        bigint      PRIMARY KEY,
  author_id bigint      NOT NULL,
  published boolean     NOT NULL,
  deleted   boolean     NOT NULL DEFAULT false,
  version   timestamptz NOT NULL
);

-- A story on a shelf, at most once per shelf.
CREATE TABLE bookshelf_items (
  id           bigserial   PRIMARY KEY,
  bookshelf_id bigint      NOT NULL REFERENCES bookshelves (id) ON DELETE CASCADE,
  story_id     bigint      NOT NULL REFERENCES known_stories (id),
  read         boolean     NOT NULL DEFAULT false,
  date_added   timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (bookshelf_id, story_id)
);
-- The list order (date_added, then id) and the story's items (publication changes, deletion).
CREATE INDEX bookshelf_items_order_idx ON bookshelf_items (bookshelf_id, date_added, id);
CREATE INDEX bookshelf_items_story_idx ON bookshelf_items (story_id);
