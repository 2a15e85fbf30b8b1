-- GET /stories is answered from an OpenSearch index of the published stories (docs/api/stories.md,
-- "Search"); Postgres stays the source of truth. Every story row carries a version that grows
-- with every change of the row (any column, the counts the stats consumer writes included) and
-- of its description, in the same statement as the change. The index keeps each document at
-- the version it was read at (external versioning), so a write made from an older read of the
-- row can never replace a newer one, whatever order the index consumer, its replicas and a
-- rebuild happen to write in.
CREATE SEQUENCE story_index_versions AS bigint;

ALTER TABLE stories ADD COLUMN index_version bigint NOT NULL DEFAULT nextval('story_index_versions');

-- Row locks serialise updates of one story, and a waiting UPDATE runs this trigger only once it
-- holds the lock, so versions grow in commit order per story.
CREATE FUNCTION bump_story_index_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW IS DISTINCT FROM OLD THEN
    NEW.index_version := nextval('story_index_versions');
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER stories_index_version BEFORE UPDATE ON stories FOR EACH ROW EXECUTE FUNCTION bump_story_index_version();

-- The description lives beside the story row; changing it is a change of the story's document.
CREATE FUNCTION bump_story_index_version_of_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE stories SET index_version = nextval('story_index_versions') WHERE id = NEW.story_id;
  RETURN NULL;
END
$$;
CREATE TRIGGER story_texts_index_version AFTER UPDATE OF description ON story_texts
  FOR EACH ROW WHEN (NEW.description IS DISTINCT FROM OLD.description) EXECUTE FUNCTION bump_story_index_version_of_text();
