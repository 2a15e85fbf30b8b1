-- Sorting and filtering by a story's last update (docs/api/updates.md, "Sorting and filtering by
-- update"): date_updated, the last time one of its chapters became published (null until then).

-- sort=date_updated / -date_updated of an author's stories and of a shelf's, walked like the other
-- value sorts (migration 0001): stories without an update come last in both directions, so each
-- direction has its own coalesce (the expressions of story-list.sql.ts, exactly).
CREATE INDEX stories_date_updated_asc_idx ON stories ((coalesce(date_updated, 'infinity'::timestamptz)), id) WHERE published;
CREATE INDEX stories_date_updated_desc_idx ON stories ((coalesce(date_updated, '-infinity'::timestamptz)), id) WHERE published;

-- filter[date_updated] on shelf lists: the shelf copy (migration 0006) carries it like the other
-- filtered columns, kept by the same triggers in the transaction of every change.
ALTER TABLE bookshelf_items ADD COLUMN date_updated timestamptz;

UPDATE bookshelf_items m SET date_updated = s.date_updated FROM stories s WHERE s.id = m.story_id AND s.date_updated IS NOT NULL;

-- As migration 0008 (FOR SHARE on the story row), with date_updated.
CREATE OR REPLACE FUNCTION bookshelf_items_copy_story() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.published, s.author_id, s.tag_ids, s.num_words, s.status, s.date_published, s.date_updated, s.search_vector
    INTO NEW.published, NEW.author_id, NEW.tag_ids, NEW.num_words, NEW.status, NEW.date_published, NEW.date_updated, NEW.search_vector
    FROM stories s WHERE s.id = NEW.story_id
    FOR SHARE;
  IF NOT FOUND THEN
    NEW.published := false;
  END IF;
  RETURN NEW;
END
$$;

-- As migration 0006, with date_updated.
CREATE OR REPLACE FUNCTION stories_copy_to_bookshelf_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE bookshelf_items SET published = false WHERE story_id = OLD.id AND published;
    RETURN NULL;
  END IF;
  UPDATE bookshelf_items
     SET published = NEW.published, author_id = NEW.author_id, tag_ids = NEW.tag_ids, num_words = NEW.num_words, status = NEW.status,
         date_published = NEW.date_published, date_updated = NEW.date_updated, search_vector = NEW.search_vector
   WHERE story_id = NEW.id;
  RETURN NULL;
END
$$;

DROP TRIGGER stories_copy_to_bookshelf_items ON stories;
CREATE TRIGGER stories_copy_to_bookshelf_items AFTER UPDATE OF published, author_id, tag_ids, num_words, status, date_published, date_updated, search_vector ON stories
  FOR EACH ROW
  WHEN ((OLD.published, OLD.author_id, OLD.tag_ids, OLD.num_words, OLD.status, OLD.date_published, OLD.date_updated, OLD.search_vector)
        IS DISTINCT FROM (NEW.published, NEW.author_id, NEW.tag_ids, NEW.num_words, NEW.status, NEW.date_published, NEW.date_updated, NEW.search_vector))
  EXECUTE FUNCTION stories_copy_to_bookshelf_items();

-- sort=date_added walks check every filter in the index itself (migration 0006): date_updated rides along.
DROP INDEX bookshelf_items_date_added_idx;
DROP INDEX bookshelf_items_unread_idx;
CREATE INDEX bookshelf_items_date_added_idx ON bookshelf_items (bookshelf_id, date_added, id)
  INCLUDE (story_id, published, author_id, num_words, status, date_published, date_updated, tag_ids) WHERE current;
CREATE INDEX bookshelf_items_unread_idx ON bookshelf_items (bookshelf_id, date_added, id)
  INCLUDE (story_id, published, author_id, num_words, status, date_published, date_updated, tag_ids) WHERE current AND NOT read;
