-- Caps on active OAuth tokens and the pruning of inactive ones (docs/api/accounts.md, "Codes
-- and tokens"; TokenRepository.save and pruneInactive).

-- A new client-credentials token counts the app's unrevoked app-only families (a user's
-- families are found through token_grants_user_idx).
CREATE INDEX token_grants_app_only_idx ON token_grants (client_id) WHERE user_id IS NULL AND revoked_at IS NULL;

-- The hourly sweep deletes tokens and codes a day after they expired or were revoked.
CREATE INDEX access_tokens_expires_idx ON access_tokens (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX access_tokens_revoked_idx ON access_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens (expires_at);
CREATE INDEX refresh_tokens_revoked_idx ON refresh_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX authorization_codes_expires_idx ON authorization_codes (expires_at);
