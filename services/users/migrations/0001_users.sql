-- Accounts and public profiles. Counts are maintained from events (contract.md §8).
CREATE TABLE users (
  id             bigserial PRIMARY KEY,
  name           text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
  email          text        NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  password_hash  text        NOT NULL,
  bio            text        NOT NULL DEFAULT '',
  bio_html       text        NOT NULL DEFAULT '',
  num_followers  integer     NOT NULL DEFAULT 0 CHECK (num_followers >= 0),
  num_following  integer     NOT NULL DEFAULT 0 CHECK (num_following >= 0),
  num_stories    integer     NOT NULL DEFAULT 0 CHECK (num_stories >= 0),
  num_blog_posts integer     NOT NULL DEFAULT 0 CHECK (num_blog_posts >= 0),
  date_joined    timestamptz NOT NULL DEFAULT now(),
  date_modified  timestamptz NOT NULL DEFAULT now()
);

-- Names and addresses are unique regardless of case.
CREATE UNIQUE INDEX users_name_key ON users (lower(name));
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
