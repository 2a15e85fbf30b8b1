-- filter[content_rating] on shelf lists (docs/api/stories.md, "GET /stories"): the shelf copy
-- (migrations 0006, 0010) carries the story's content rating like the other filtered columns, kept
-- by the same triggers in the transaction of every change.
ALTER TABLE bookshelf_items ADD COLUMN content_rating text;

UPDATE bookshelf_items m SET content_rating = s.content_rating FROM stories s WHERE s.id = m.story_id;

-- As migration 0010, with content_rating.
CREATE OR REPLACE FUNCTION bookshelf_items_copy_story() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.published, s.author_id, s.tag_ids, s.num_words, s.status, s.content_rating, s.date_published, s.date_updated, s.search_vector
    INTO NEW.published, NEW.author_id, NEW.tag_ids, NEW.num_words, NEW.status, NEW.content_rating, NEW.date_published, NEW.date_updated, NEW.search_vector
    FROM stories s WHERE s.id = NEW.story_id
    FOR SHARE;
  IF NOT FOUND THEN
    NEW.published := false;
  END IF;
  RETURN NEW;
END
$$;

-- As migration 0010, with content_rating.
CREATE OR REPLACE FUNCTION stories_copy_to_bookshelf_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE bookshelf_items SET published = false WHERE story_id = OLD.id AND published;
    RETURN NULL;
  END IF;
  UPDATE bookshelf_items
     SET published = NEW.published, author_id = NEW.author_id, tag_ids = NEW.tag_ids, num_words = NEW.num_words, status = NEW.status,
         content_rating = NEW.content_rating, date_published = NEW.date_published, date_updated = NEW.date_updated,
         search_vector = NEW.search_vector
   WHERE story_id = NEW.id;
  RETURN NULL;
END
$$;

DROP TRIGGER stories_copy_to_bookshelf_items ON stories;
CREATE TRIGGER stories_copy_to_bookshelf_items AFTER UPDATE OF published, author_id, tag_ids, num_words, status, content_rating, date_published, date_updated, search_vector ON stories
  FOR EACH ROW
  WHEN ((OLD.published, OLD.author_id, OLD.tag_ids, OLD.num_words, OLD.status, OLD.content_rating, OLD.date_published, OLD.date_updated, OLD.search_vector)
        IS DISTINCT FROM (NEW.published, NEW.author_id, NEW.tag_ids, NEW.num_words, NEW.status, NEW.content_rating, NEW.date_published, NEW.date_updated, NEW.search_vector))
  EXECUTE FUNCTION stories_copy_to_bookshelf_items();

-- sort=date_added walks check every filter in the index itself (migration 0006): content_rating rides along.
DROP INDEX bookshelf_items_date_added_idx;
DROP INDEX bookshelf_items_unread_idx;
CREATE INDEX bookshelf_items_date_added_idx ON bookshelf_items (bookshelf_id, date_added, id)
  INCLUDE (story_id, published, author_id, num_words, status, content_rating, date_published, date_updated, tag_ids) WHERE current;
CREATE INDEX bookshelf_items_unread_idx ON bookshelf_items (bookshelf_id, date_added, id)
  INCLUDE (story_id, published, author_id, num_words, status, content_rating, date_published, date_updated, tag_ids) WHERE current AND NOT read;
