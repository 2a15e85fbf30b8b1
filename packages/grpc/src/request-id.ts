import { randomUUID } from 'node:crypto';

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The gRPC metadata key (and HTTP header) that carries a call's request id. */
export const REQUEST_ID_METADATA_KEY = 'x-request-id';

/**
 * The request id of a request or call: the given `X-Request-Id` (the API client's header at the
 * gateway, the calling process's metadata in a service) when it is sane (1–128 characters of
 * `[A-Za-z0-9._-]`, so it is safe in logs, headers and gRPC metadata), otherwise a fresh UUID.
 * A repeated header (Node joins it with `, `) or an array is not sane.
 */
export function requestIdFrom(header: string | readonly string[] | undefined): string {
  if (typeof header === 'string' && SANE_REQUEST_ID.test(header)) return header;
  return randomUUID();
}
