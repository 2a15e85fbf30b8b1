-- An item inserted while its story is being changed must not keep the story's values from before
-- the change (docs/api/stories.md, "Bookshelves in story lists": a shelf list follows a story's
-- change at once). Without a lock, the insert could read the story before the change commits while
-- the change's update of the story's items (migration 0006) cannot see the item not yet
-- committed. FOR SHARE on the story row makes the insert wait for a change in progress and read
-- its result; a change that starts after the insert waits for it and then updates the new item.
CREATE OR REPLACE FUNCTION bookshelf_items_copy_story() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.published, s.author_id, s.tag_ids, s.num_words, s.status, s.date_published, s.search_vector
    INTO NEW.published, NEW.author_id, NEW.tag_ids, NEW.num_words, NEW.status, NEW.date_published, NEW.search_vector
    FROM stories s WHERE s.id = NEW.story_id
    FOR SHARE;
  IF NOT FOUND THEN
    NEW.published := false;
  END IF;
  RETURN NEW;
END
$$;
