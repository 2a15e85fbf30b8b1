-- The newest published chapters of a story or of an author's stories, for the Atom feeds
-- (docs/api/updates.md, "Atom feeds"; ChapterRepository.listLatest). One story's: a backward walk
-- of its slice of this index. An author's: the author's published stories
-- (stories_author_published_idx, migration 0003), then each one's slice of this index, merged.
CREATE INDEX chapters_story_published_idx ON chapters (story_id, date_published, id) WHERE published;
