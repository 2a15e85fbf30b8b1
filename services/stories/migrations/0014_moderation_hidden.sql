-- Content an operator hid (docs/api/safety.md, "Reports and moderation"): a hidden story or
-- chapter is also unpublished (so it leaves every list, feed, search and download the way a draft
-- does, with its StoryUpdated/ChapterUpdated events), and hidden_at makes it not exist for
-- everyone, its author included. A hidden comment leaves its story's comments. Hiding is final.
ALTER TABLE stories ADD COLUMN hidden_at timestamptz;
ALTER TABLE chapters ADD COLUMN hidden_at timestamptz;
ALTER TABLE comments ADD COLUMN hidden_at timestamptz;
