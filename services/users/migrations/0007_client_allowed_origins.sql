-- The web origins a browser app may call the API and the token endpoints from (CORS,
-- docs/api/auth.md, "Browser apps (CORS)"), and the lookup of a preflight, which asks whether
-- any app registered an origin (OAuthClientRepository.isOriginRegistered).
ALTER TABLE oauth_clients ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}'
  CHECK (cardinality(allowed_origins) <= 10);

CREATE INDEX oauth_clients_allowed_origins_idx ON oauth_clients USING gin (allowed_origins);
