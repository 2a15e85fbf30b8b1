-- Private messages an operator hid (docs/api/safety.md, "Reports and moderation"): moved out of
-- `messages`, so that they leave both mailboxes and every read while the mailbox queries and their
-- covering indexes stay as they are; kept here as they were. Hiding is final.
CREATE TABLE hidden_messages (
  id           bigint      PRIMARY KEY,
  sender_id    bigint      NOT NULL,
  recipient_id bigint      NOT NULL,
  subject      text        NOT NULL,
  content      text        NOT NULL,
  content_html text        NOT NULL,
  date_sent    timestamptz NOT NULL,
  read         boolean     NOT NULL,
  date_hidden  timestamptz NOT NULL DEFAULT now()
);
