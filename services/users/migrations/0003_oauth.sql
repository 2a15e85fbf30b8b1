-- The OAuth 2.0 store behind the gateway's authorization server. Secrets (client secrets,
-- codes, tokens) are stored only as sha256 hex hashes (hashToken of @inkwell/auth-tokens).

CREATE TABLE oauth_clients (
  id            text        PRIMARY KEY,
  name          text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  redirect_uris text[]      NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  confidential  boolean     NOT NULL,
  secret_hash   text        UNIQUE,
  -- NULL for clients created by the operator.
  owner_user_id bigint      REFERENCES users (id) ON DELETE CASCADE,
  date_created  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oauth_clients_secret_check CHECK (confidential = (secret_hash IS NOT NULL))
);

CREATE INDEX oauth_clients_owner_idx ON oauth_clients (owner_user_id, date_created, id);

CREATE TABLE authorization_codes (
  id                    bigserial   PRIMARY KEY,
  code_hash             text        NOT NULL UNIQUE,
  client_id             text        NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  user_id               bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  redirect_uri          text        NOT NULL,
  scopes                text[]      NOT NULL,
  code_challenge        text        NOT NULL DEFAULT '',
  code_challenge_method text        NOT NULL DEFAULT '' CHECK (code_challenge_method IN ('', 'S256', 'plain')),
  expires_at            timestamptz NOT NULL,
  consumed_at           timestamptz,
  -- Set when a consumed code was presented again: tokens issued from it are revoked, and
  -- SaveTokens refuses to issue more.
  reused_at             timestamptz,
  date_created          timestamptz NOT NULL DEFAULT now()
);

-- A grant is one family of tokens: an authorization (a code exchange and every refresh
-- rotation after it, or one client-credentials issuance) or one personal access token.
-- Revoking a family revokes every token in it.
CREATE TABLE token_grants (
  id                    bigserial   PRIMARY KEY,
  -- NULL for personal access tokens.
  client_id             text        REFERENCES oauth_clients (id) ON DELETE CASCADE,
  -- NULL for app-only (client credentials) tokens.
  user_id               bigint      REFERENCES users (id) ON DELETE CASCADE,
  authorization_code_id bigint      REFERENCES authorization_codes (id) ON DELETE SET NULL,
  -- The owner's label; set exactly for personal access tokens.
  personal_name         text        CHECK (char_length(personal_name) BETWEEN 1 AND 100),
  revoked_at            timestamptz,
  date_created          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT token_grants_kind_check CHECK ((client_id IS NULL) = (personal_name IS NOT NULL)),
  CONSTRAINT token_grants_personal_user_check CHECK (client_id IS NOT NULL OR user_id IS NOT NULL)
);

CREATE INDEX token_grants_user_idx ON token_grants (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX token_grants_client_idx ON token_grants (client_id) WHERE client_id IS NOT NULL;
CREATE INDEX token_grants_code_idx ON token_grants (authorization_code_id) WHERE authorization_code_id IS NOT NULL;

CREATE TABLE access_tokens (
  id           bigserial   PRIMARY KEY,
  token_hash   text        NOT NULL UNIQUE,
  grant_id     bigint      NOT NULL REFERENCES token_grants (id) ON DELETE CASCADE,
  scopes       text[]      NOT NULL,
  -- NULL: never expires (personal tokens only).
  expires_at   timestamptz,
  revoked_at   timestamptz,
  date_created timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX access_tokens_grant_idx ON access_tokens (grant_id);

CREATE TABLE refresh_tokens (
  id           bigserial   PRIMARY KEY,
  token_hash   text        NOT NULL UNIQUE,
  grant_id     bigint      NOT NULL REFERENCES token_grants (id) ON DELETE CASCADE,
  scopes       text[]      NOT NULL,
  expires_at   timestamptz NOT NULL,
  -- Set when the token was exchanged for a new pair; presenting it again is reuse.
  used_at      timestamptz,
  revoked_at   timestamptz,
  date_created timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX refresh_tokens_grant_idx ON refresh_tokens (grant_id);
