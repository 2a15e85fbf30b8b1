import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import { BoundedEntries } from '@inkwell/limits';

/** The users-service calls the origin checks make. */
export type WebOriginsUsersClient = Pick<GrpcClient<typeof UsersService>, 'getClient' | 'checkWebOrigin'>;

/** How the answers are kept: how long, and how many of each kind at most. */
export interface WebOriginsOptions {
  /** How long an app's origins, or whether any app allows an origin, is remembered (a change takes at most this long). */
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly deadlineMs: number;
}

/** A minute: an app's new origin works, and a removed one stops working, within a minute. */
export const WEB_ORIGINS_TTL_MS = 60_000;

/**
 * Which web origins may call (docs/api/auth.md, "Browser apps (CORS)"), from the users service,
 * remembered in this process for `ttlMs`: the allowed origins of an app (for a request whose token
 * or `client_id` names it), and whether any app allows an origin (for a preflight, which names no
 * app). An unknown app allows none. When the users service cannot answer, nothing is allowed
 * (fails closed: the browser sees a network error, the API is not opened to an unchecked origin)
 * and nothing is remembered.
 */
export class WebOrigins {
  readonly #ofApp: BoundedEntries<string, readonly string[]>;
  readonly #registered: BoundedEntries<string, boolean>;
  readonly #options: WebOriginsOptions;

  constructor(
    private readonly users: WebOriginsUsersClient,
    options: Partial<WebOriginsOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.#options = { ttlMs: options.ttlMs ?? WEB_ORIGINS_TTL_MS, maxEntries: options.maxEntries ?? 10_000, deadlineMs: options.deadlineMs ?? 2_000 };
    const bounds = { maxEntries: this.#options.maxEntries, maxBytes: this.#options.maxEntries * 4096 };
    this.#ofApp = new BoundedEntries(bounds);
    this.#registered = new BoundedEntries(bounds);
  }

  /** Whether app `clientId` lists `origin` among its allowed origins. */
  async allowsApp(clientId: string, origin: string): Promise<boolean> {
    const now = this.now();
    let origins = this.#ofApp.get(clientId, now);
    if (origins === undefined) {
      try {
        origins = (await this.users.getClient({ clientId }, { caller: { requestId: 'cors', scopes: [] }, deadlineMs: this.#options.deadlineMs })).client?.allowedOrigins ?? [];
      } catch (error) {
        if (!isAppError(error) || (error.code !== ErrorCode.NOT_FOUND && error.code !== ErrorCode.INVALID_ARGUMENT)) return false;
        origins = [];
      }
      this.#ofApp.set(clientId, origins, now + this.#options.ttlMs, now);
    }
    return origins.includes(origin);
  }

  /**
   * What is known without asking: false for a value that is no well-formed origin (as browsers
   * write it: `http(s)://host[:port]`, lower case, nothing after), the remembered answer of
   * {@link anyAppAllows}, or undefined when only the users service can tell.
   */
  knownAnyAppAllows(origin: string): boolean | undefined {
    if (!isWellFormedOrigin(origin)) return false;
    return this.#registered.get(origin, this.now());
  }

  /** Whether any app lists `origin` among its allowed origins (false at once for a value that is no well-formed origin). */
  async anyAppAllows(origin: string): Promise<boolean> {
    if (!isWellFormedOrigin(origin)) return false;
    const now = this.now();
    let registered = this.#registered.get(origin, now);
    if (registered === undefined) {
      try {
        registered = (await this.users.checkWebOrigin({ origin }, { caller: { requestId: 'cors', scopes: [] }, deadlineMs: this.#options.deadlineMs })).registered;
      } catch {
        return false;
      }
      this.#registered.set(origin, registered, now + this.#options.ttlMs, now);
    }
    return registered;
  }
}

/** Whether `origin` is an http(s) origin written as browsers send it (what an app can register at all). */
function isWellFormedOrigin(origin: string): boolean {
  if (origin.length > 300 || !/^https?:\/\//.test(origin)) return false;
  try {
    return new URL(origin).origin === origin;
  } catch {
    return false;
  }
}
