-- Private messages between two users (sender and recipient may be the same user). User ids refer
-- to the users service; there is no foreign key across schemas: the recipient is checked over
-- gRPC when a message is sent.
CREATE TABLE messages (
  id           bigserial   PRIMARY KEY,
  sender_id    bigint      NOT NULL CHECK (sender_id > 0),
  recipient_id bigint      NOT NULL CHECK (recipient_id > 0),
  subject      text        NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
  content      text        NOT NULL CHECK (octet_length(content) BETWEEN 1 AND 1048576),
  content_html text        NOT NULL,
  -- Milliseconds, like the API's dates: a client filtering with a date it was shown must match it.
  date_sent    timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  read         boolean     NOT NULL DEFAULT false
);

-- A mailbox: what a user received, and what they sent, newest first (the default sort).
CREATE INDEX messages_recipient_idx ON messages (recipient_id, date_sent DESC, id DESC);
CREATE INDEX messages_sender_idx ON messages (sender_id, date_sent DESC, id DESC);

-- A conversation: both directions between two users in one range, newest first.
CREATE INDEX messages_pair_idx ON messages (least(sender_id, recipient_id), greatest(sender_id, recipient_id), date_sent DESC, id DESC);
