-- A copy of the stories as a service keeps it (see KnownStoryRepository), under a name of its own.
CREATE TABLE story_copies (
  id        bigint      PRIMARY KEY,
  author_id bigint      NOT NULL,
  published boolean     NOT NULL,
  deleted   boolean     NOT NULL DEFAULT false,
  version   timestamptz NOT NULL
);
