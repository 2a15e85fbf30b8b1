export { generateToken, hashToken, TOKEN_PREFIXES, type TokenKind } from './tokens.js';
export { parseScopes, SCOPES, SCOPE_NAMES, isScope, type Scope, type ParsedScopes } from './scopes.js';
export { REVOCATION_CHANNEL, encodeRevocationNotice, decodeRevocationNotice, type RevocationNotice } from './revocation.js';
export { DOCS_CLIENT, docsClientRedirectUri } from './docs-client.js';
