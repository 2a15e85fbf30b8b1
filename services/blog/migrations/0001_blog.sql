-- Blog posts of users and of the site (site_post: created by operators, no author).
CREATE TABLE blog_posts (
  id            bigserial   PRIMARY KEY,
  author_id     bigint,
  title         text        NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  content       text        NOT NULL CHECK (octet_length(content) <= 1048576),
  content_html  text        NOT NULL,
  intro         text        NOT NULL,
  tags          text[]      NOT NULL DEFAULT '{}',
  site_post     boolean     NOT NULL DEFAULT false,
  site_post_tag text,
  num_views     integer     NOT NULL DEFAULT 0 CHECK (num_views >= 0),
  -- Millisecond precision, so a keyset cursor (JavaScript Date) names a row exactly.
  date_posted   timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  date_modified timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  -- Maintained by blog_posts_search_update(); title weighs most, then tags, then content.
  search        tsvector    NOT NULL DEFAULT ''::tsvector,
  CHECK (site_post OR author_id IS NOT NULL),
  CHECK (site_post OR site_post_tag IS NULL)
);

-- One index per sort (ties by id), per author (GET /users/:id/blog-posts), and for search and tags.
CREATE INDEX blog_posts_date_posted_idx ON blog_posts (date_posted, id);
CREATE INDEX blog_posts_num_views_idx ON blog_posts (num_views, id);
CREATE INDEX blog_posts_author_idx ON blog_posts (author_id, date_posted, id);
CREATE INDEX blog_posts_search_idx ON blog_posts USING gin (search);
CREATE INDEX blog_posts_tags_idx ON blog_posts USING gin (tags);
CREATE INDEX blog_posts_site_idx ON blog_posts (site_post_tag, date_posted, id) WHERE site_post;

-- The search document: title (A), tags (B) and the first 100,000 characters of the content (C),
-- which keeps the tsvector far below its 1 MB limit for any content. Should a pathological text
-- still hit a limit, the post is indexed by title, tags and a shorter opening instead of failing.
CREATE FUNCTION blog_posts_search_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    NEW.search := setweight(to_tsvector('english', NEW.title), 'A')
      || setweight(to_tsvector('english', array_to_string(NEW.tags, ' ')), 'B')
      || setweight(to_tsvector('english', left(NEW.content, 100000)), 'C');
  EXCEPTION WHEN program_limit_exceeded THEN
    NEW.search := setweight(to_tsvector('english', NEW.title), 'A')
      || setweight(to_tsvector('english', array_to_string(NEW.tags, ' ')), 'B')
      || setweight(to_tsvector('english', left(NEW.content, 5000)), 'C');
  END;
  RETURN NEW;
END
$$;

CREATE TRIGGER blog_posts_search_trigger
  BEFORE INSERT OR UPDATE OF title, tags, content ON blog_posts
  FOR EACH ROW EXECUTE FUNCTION blog_posts_search_update();

-- Stories a post is tagged with, in the author's order. A link to a story that is no longer
-- published (or deleted) is kept but not shown; it shows again if the story is republished.
CREATE TABLE blog_post_stories (
  blog_post_id bigint   NOT NULL REFERENCES blog_posts (id) ON DELETE CASCADE,
  story_id     bigint   NOT NULL,
  position     smallint NOT NULL,
  PRIMARY KEY (blog_post_id, story_id)
);
CREATE INDEX blog_post_stories_story_idx ON blog_post_stories (story_id);

-- The blog's copy of which stories exist and are published, fed by stories.story.v1 events.
-- changed_at is the occurred_at of the last event applied; deleted rows are tombstones.
CREATE TABLE known_stories (
  id         bigint      PRIMARY KEY,
  published  boolean     NOT NULL,
  deleted    boolean     NOT NULL DEFAULT false,
  changed_at timestamptz NOT NULL
);
