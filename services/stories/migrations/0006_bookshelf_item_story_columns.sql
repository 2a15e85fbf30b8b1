-- Shelf lists filtered by anything else (docs/api/stories.md, "Bookshelves in story lists",
-- "Cost"): each shelf item carries a copy of the columns of its story that GET /stories filters
-- on, so a walk of the shelf can skip items without reading the stories table, and a word or a
-- tag can be looked up on one shelf only. The copy is kept by triggers in the transaction of every
-- change: an item gets its story's values when it is inserted, and a story's change of any of
-- these columns is written to all its items at once. A story deleted leaves its items unpublished.

ALTER TABLE bookshelf_items
  ADD COLUMN published      boolean     NOT NULL DEFAULT false,
  ADD COLUMN author_id      bigint,
  ADD COLUMN tag_ids        text[]      NOT NULL DEFAULT '{}',
  ADD COLUMN num_words      integer     NOT NULL DEFAULT 0,
  ADD COLUMN status         text,
  ADD COLUMN date_published timestamptz,
  ADD COLUMN search_vector  tsvector    NOT NULL DEFAULT ''::tsvector;

UPDATE bookshelf_items m
   SET published = s.published, author_id = s.author_id, tag_ids = s.tag_ids, num_words = s.num_words, status = s.status,
       date_published = s.date_published, search_vector = s.search_vector
  FROM stories s
 WHERE s.id = m.story_id;

-- A new item (or a replayed one) takes its story's current values.
CREATE FUNCTION bookshelf_items_copy_story() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.published, s.author_id, s.tag_ids, s.num_words, s.status, s.date_published, s.search_vector
    INTO NEW.published, NEW.author_id, NEW.tag_ids, NEW.num_words, NEW.status, NEW.date_published, NEW.search_vector
    FROM stories s WHERE s.id = NEW.story_id;
  IF NOT FOUND THEN
    NEW.published := false;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER bookshelf_items_copy_story BEFORE INSERT ON bookshelf_items
  FOR EACH ROW EXECUTE FUNCTION bookshelf_items_copy_story();

-- A story's change reaches every item of it (tombstones included, so a shelf copy replayed later
-- never shows stale values).
CREATE FUNCTION stories_copy_to_bookshelf_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE bookshelf_items SET published = false WHERE story_id = OLD.id AND published;
    RETURN NULL;
  END IF;
  UPDATE bookshelf_items
     SET published = NEW.published, author_id = NEW.author_id, tag_ids = NEW.tag_ids, num_words = NEW.num_words, status = NEW.status,
         date_published = NEW.date_published, search_vector = NEW.search_vector
   WHERE story_id = NEW.id;
  RETURN NULL;
END
$$;
-- Only updates naming one of the copied columns fire it (view counts and hotness do not), and
-- only when one of them changed.
CREATE TRIGGER stories_copy_to_bookshelf_items AFTER UPDATE OF published, author_id, tag_ids, num_words, status, date_published, search_vector ON stories
  FOR EACH ROW
  WHEN ((OLD.published, OLD.author_id, OLD.tag_ids, OLD.num_words, OLD.status, OLD.date_published, OLD.search_vector)
        IS DISTINCT FROM (NEW.published, NEW.author_id, NEW.tag_ids, NEW.num_words, NEW.status, NEW.date_published, NEW.search_vector))
  EXECUTE FUNCTION stories_copy_to_bookshelf_items();
CREATE TRIGGER stories_copy_to_bookshelf_items_delete AFTER DELETE ON stories
  FOR EACH ROW EXECUTE FUNCTION stories_copy_to_bookshelf_items();

-- The items of one story, for the triggers above.
CREATE INDEX bookshelf_items_story_idx ON bookshelf_items (story_id);

-- sort=date_added walks: the filters' columns ride in the index, so a page is read from the index
-- alone however many items the filters skip (the story rows are read for the page only).
DROP INDEX bookshelf_items_date_added_idx;
DROP INDEX bookshelf_items_unread_idx;
CREATE INDEX bookshelf_items_date_added_idx ON bookshelf_items (bookshelf_id, date_added, id)
  INCLUDE (story_id, published, author_id, num_words, status, date_published, tag_ids) WHERE current;
CREATE INDEX bookshelf_items_unread_idx ON bookshelf_items (bookshelf_id, date_added, id)
  INCLUDE (story_id, published, author_id, num_words, status, date_published, tag_ids) WHERE current AND NOT read;

-- A word or tags on one shelf: one GIN scan intersecting the shelf with the word's (or tags')
-- items, so its cost is bounded by the shelf, not by how many stories the word matches
-- elsewhere. btree_gin gives bigint a GIN operator class (a trusted extension: no superuser
-- needed; its objects land in this schema unless the database has it already).
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX bookshelf_items_search_idx ON bookshelf_items USING gin (bookshelf_id, search_vector, tag_ids) WHERE current AND published;
