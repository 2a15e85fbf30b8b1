-- An item event for a story that no longer exists (the bookshelves service removes a deleted
-- story's items after the deletion; an addition may arrive after it) must apply like any other
-- (docs/api/stories.md, "Bookshelves in story lists"). As migration 0013, except that the story's
-- values go through a record: `SELECT ... INTO NEW.a, NEW.b` with no row sets every target to
-- NULL, which broke the NOT NULL columns (tag_ids, num_words, search_vector) and made the
-- consumer skip the event. Without a story, the item keeps the columns' defaults, unpublished.
CREATE OR REPLACE FUNCTION bookshelf_items_copy_story() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  story record;
BEGIN
  SELECT s.published, s.author_id, s.tag_ids, s.num_words, s.status, s.content_rating, s.date_published, s.date_updated, s.search_vector
    INTO story
    FROM stories s WHERE s.id = NEW.story_id
    FOR SHARE;
  IF NOT FOUND THEN
    NEW.published := false;
    RETURN NEW;
  END IF;
  NEW.published := story.published;
  NEW.author_id := story.author_id;
  NEW.tag_ids := story.tag_ids;
  NEW.num_words := story.num_words;
  NEW.status := story.status;
  NEW.content_rating := story.content_rating;
  NEW.date_published := story.date_published;
  NEW.date_updated := story.date_updated;
  NEW.search_vector := story.search_vector;
  RETURN NEW;
END
$$;
