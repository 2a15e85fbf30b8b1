/**
 * Who is calling: the API caller the gateway authenticated, carried to every service inside the
 * signed caller assertion of each call (see assertion.ts; docs/api/foundation.md, "Internal
 * calls") and read by the server from the verified assertion only; the request id travels beside
 * it (`x-request-id`) as a log label.
 */
export interface CallerContext {
  /** Correlates every log line of one API request across the gateway and all services. */
  requestId: string;
  /** The signed-in user the token belongs to; absent for app-only (client credentials) tokens. */
  userId?: string;
  /** The OAuth application that made the request; absent for internal calls. */
  appId?: string;
  /** OAuth scopes granted to the token. */
  scopes: readonly string[];
}
