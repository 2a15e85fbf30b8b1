import { randomUUID } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';

/** Who is calling: set by the gateway, carried as gRPC metadata, read in one place per service. */
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

const REQUEST_ID_KEY = 'x-request-id';
const USER_ID_KEY = 'x-inkwell-user-id';
const APP_ID_KEY = 'x-inkwell-app-id';
const SCOPES_KEY = 'x-inkwell-scopes';

/**
 * Writes the caller into gRPC metadata (into `metadata` when given, replacing earlier caller
 * keys, otherwise into a new one) and returns it. Absent user/app ids and empty scopes are left
 * out. Values must be printable ASCII (grpc-js throws otherwise): the gateway validates the
 * request id it echoes.
 */
export function callerToMetadata(caller: CallerContext, metadata: Metadata = new Metadata()): Metadata {
  metadata.set(REQUEST_ID_KEY, caller.requestId);
  setOrRemove(metadata, USER_ID_KEY, caller.userId);
  setOrRemove(metadata, APP_ID_KEY, caller.appId);
  setOrRemove(metadata, SCOPES_KEY, caller.scopes.length > 0 ? caller.scopes.join(' ') : undefined);
  return metadata;
}

/**
 * Reads the caller from incoming gRPC metadata. A missing or blank request id is replaced by a
 * fresh UUID so that every call can be correlated; blank ids are treated as absent; scopes are
 * split on whitespace.
 */
export function callerFromMetadata(metadata: Metadata): CallerContext {
  const caller: CallerContext = {
    requestId: firstString(metadata, REQUEST_ID_KEY) ?? randomUUID(),
    scopes: (firstString(metadata, SCOPES_KEY) ?? '').split(/\s+/).filter((scope) => scope !== ''),
  };
  const userId = firstString(metadata, USER_ID_KEY);
  if (userId !== undefined) caller.userId = userId;
  const appId = firstString(metadata, APP_ID_KEY);
  if (appId !== undefined) caller.appId = appId;
  return caller;
}

function setOrRemove(metadata: Metadata, key: string, value: string | undefined): void {
  if (value === undefined || value === '') metadata.remove(key);
  else metadata.set(key, value);
}

function firstString(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
