-- The blog's copy of the stories takes the one shape every copy has (@inkwell/known-stories):
-- `version` is the story's date_modified (the event's occurred_at when a snapshot has none), and
-- the author is kept too. Rows copied before this migration say author 0 until the story next
-- changes; the blog reads only published and deleted.
ALTER TABLE known_stories RENAME COLUMN changed_at TO version;
ALTER TABLE known_stories ADD COLUMN author_id bigint NOT NULL DEFAULT 0;
ALTER TABLE known_stories ALTER COLUMN author_id DROP DEFAULT;
