/** The request header that makes a POST idempotent (docs/api/foundation.md, "Idempotent POSTs"). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** The response header marking an answer replayed from the idempotency store. */
export const IDEMPOTENCY_REPLAY_HEADER = 'Idempotent-Replayed';
/** Longest accepted key, in characters (printable ASCII only). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** How long a key's answer is kept: 24 hours. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** New keys one caller (user and app) may use per 24 hours; beyond, 429 until the window ends. */
export const IDEMPOTENCY_MAX_KEYS_PER_CALLER = 1_000;
/** Largest answer body kept whole, in bytes of JSON; a larger one is kept as its digest and resource identifier. */
export const IDEMPOTENCY_MAX_KEPT_BODY_BYTES = 16 * 1024;
