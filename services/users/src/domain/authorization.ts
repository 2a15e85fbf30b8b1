import { decodeCursor, encodeCursor } from '@inkwell/keyset';

/**
 * An app a user authorized and has not revoked, as that user sees it (docs/api/accounts.md,
 * "Authorized apps"): every active token family of the user with that app, taken together.
 */
export interface Authorization {
  /** The app's OAuth client id. */
  clientId: string;
  appName: string;
  /** The union of the scopes of the app's active tokens for the user, in the order of SCOPES. */
  scopes: string[];
  /** When the earliest active family was issued. */
  dateGranted: Date;
  /** When the app last obtained a token for the user (code exchange or refresh). */
  dateLastUsed: Date;
}

/**
 * Keyset position in a list of authorizations: the last one's date_granted in microseconds since
 * the epoch (Postgres keeps microseconds; a JS Date would round them away) and its client id.
 */
export interface AuthorizationPosition {
  dateMicros: string;
  clientId: string;
}

/** The list an authorization cursor is made for. */
const AUTHORIZATION_LIST = 'authorizations';

/** Page size of authorization lists when none is asked for (docs/api/lists.md, "Cursor pagination"). */
export const DEFAULT_AUTHORIZATION_PAGE_SIZE = 20;

/** Whether `value` has the form of an OAuth client id (22 random base64url characters; operator tooling may have made others, so up to 64). */
export function isClientId(value: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(value);
}

/** Encodes a position as an opaque, URL-safe cursor (`@inkwell/keyset`). */
export function encodeAuthorizationPosition(position: AuthorizationPosition): string {
  return encodeCursor(AUTHORIZATION_LIST, [position.dateMicros, position.clientId]);
}

/** Decodes what {@link encodeAuthorizationPosition} made; undefined for anything else. */
export function decodeAuthorizationPosition(value: string): AuthorizationPosition | undefined {
  const [dateMicros, clientId] = decodeCursor(AUTHORIZATION_LIST, value, 2) ?? [];
  if (typeof dateMicros !== 'string' || !/^-?[0-9]{1,17}$/.test(dateMicros)) return undefined;
  if (typeof clientId !== 'string' || !isClientId(clientId)) return undefined;
  return { dateMicros, clientId };
}
