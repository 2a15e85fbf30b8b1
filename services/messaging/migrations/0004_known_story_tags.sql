-- The tags of each known story (stories.story.v1 snapshots), so that a user's inbox can leave out
-- the notifications about stories carrying a tag they mute (docs/api/safety.md, "Muting").
-- Stories last changed before this column existed have none until their next event.
ALTER TABLE known_stories ADD COLUMN tag_ids text[] NOT NULL DEFAULT '{}';
