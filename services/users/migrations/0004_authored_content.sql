-- The users service's copy of who authored which published story and which user blog post,
-- fed by the stories.story.v1 and blog.post.v1 events. num_stories and num_blog_posts are
-- recounted from it, so a count can never drift from the set it counts.
CREATE TABLE authored_content (
  kind       text   NOT NULL CHECK (kind IN ('story', 'blog_post')),
  content_id bigint NOT NULL,
  author_id  bigint NOT NULL,
  PRIMARY KEY (kind, content_id)
);

CREATE INDEX authored_content_author ON authored_content (author_id, kind);
