/** The request header that makes a POST idempotent (docs/api/foundation.md, "Idempotent POSTs"). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** The response header marking an answer replayed from the idempotency store. */
export const IDEMPOTENCY_REPLAY_HEADER = 'Idempotent-Replayed';
/** Longest accepted key, in characters (printable ASCII only). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** How long a key's answer is kept: 24 hours. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
