-- Blog posts an operator hid (docs/api/safety.md, "Reports and moderation"): a hidden post does not
-- exist for anyone, its author included (every read and write of the repository leaves it out).
-- Hiding is final.
ALTER TABLE blog_posts ADD COLUMN hidden_at timestamptz;
