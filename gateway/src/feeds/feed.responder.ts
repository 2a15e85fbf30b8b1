import type { ServerResponse } from 'node:http';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { html, layout, sendPage } from '../authserver/pages/html.js';
import type { ListAnswerCache } from '../cache/list-answer.cache.js';
import { etagMatches, strongEtag } from '../cache/etag.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/api-response.js';
import { requestState, type GatewayRequest } from '../http/request-state.js';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { toErrorResponse } from '../jsonapi/error.mapping.js';
import { ATOM_MEDIA_TYPE, renderAtomFeed } from './atom.writer.js';
import { FEED_BUILDERS, type FeedBackends, type FeedKind } from './feed.builders.js';
import { parseFeedPath } from './feed-path.js';

/** A feed as sent: its bytes (as text), their strong validator, and its atom:updated as an HTTP date. */
export interface RenderedFeed {
  readonly body: string;
  readonly etag: string;
  readonly lastModified: string;
}

/** Dependencies of {@link createFeedResponder}. */
export interface FeedResponderDeps {
  readonly backends: FeedBackends;
  readonly links: ApiLinks;
  readonly logger: Logger;
  /** Rendered public feeds, shared by every caller for a short time; none: every request builds its feed. */
  readonly cache?: ListAnswerCache<RenderedFeed>;
}

/** Answers one feed request; it never passes the request on. */
export type FeedResponder = (req: GatewayRequest, res: ServerResponse) => Promise<void>;

/** Public feeds may be kept by any cache for a while, then revalidated with their ETag (docs/api/updates.md, "Atom feeds"). */
export const PUBLIC_FEED_CACHE_CONTROL = 'public, max-age=300';
/** The notifications feed's URL is its credential and its entries are one person's: nobody keeps it. */
export const PRIVATE_FEED_CACHE_CONTROL = 'private, no-store';
const ALLOWED_METHODS = 'GET, HEAD';
/** The private feed is never shared, so its answer is always built anew (a revoked token is 404 at once). */
const UNCACHED: ReadonlySet<FeedKind> = new Set(['notifications']);

/**
 * The Atom feeds (docs/api/updates.md, "Atom feeds"): `GET`/`HEAD /feeds/<kind>/<id>.atom`.
 * Each feed is built from a few backend calls made without a user (so only what the public may see,
 * or the feed token's owner's notifications), rendered by renderAtomFeed, and sent as
 * `application/atom+xml; charset=utf-8` with a strong `ETag` (digest of the bytes),
 * `Last-Modified` (the feed's atom:updated) and `Cache-Control`; `If-None-Match` (or, without it,
 * `If-Modified-Since`) that still holds is answered `304`. Public feeds are shared for a short time
 * through `cache`. A path that names no feed, and a feed whose subject does not exist or is not
 * public (a draft story, a private shelf, a revoked token), is the small HTML `404` page of the
 * gateway's other non-API routes; other methods `405`; a backend outage `503` (`Retry-After`),
 * anything else `500`, logged, without details.
 */
export function createFeedResponder(deps: FeedResponderDeps): FeedResponder {
  const { backends, links, logger, cache } = deps;
  return async (req, res) => {
    const state = requestState(req);
    const url = req.originalUrl ?? req.url ?? '/';
    const queryStart = url.indexOf('?');
    const target = parseFeedPath(queryStart === -1 ? url : url.slice(0, queryStart));
    if (target === undefined) return notFound(res);
    state.route = target.route;
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(res, method);

    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const build = async (signal?: AbortSignal): Promise<RenderedFeed> => {
      const feed = await FEED_BUILDERS[target.kind](target.id, { backends, links, caller: { requestId: state.requestId, scopes: [] }, signal });
      return rendered(renderAtomFeed(feed), feed.updated);
    };
    const shared = cache !== undefined && !UNCACHED.has(target.kind);
    let feed: RenderedFeed;
    try {
      // A shared build serves every caller waiting for it, so no one client's departure cancels it.
      feed = shared ? await cache.get(`${target.kind}:${target.id}`, () => build(), () => false) : await build(gone.signal);
    } catch (error) {
      return failed(res, error, logger);
    }
    send(req, res, feed, UNCACHED.has(target.kind) ? PRIVATE_FEED_CACHE_CONTROL : PUBLIC_FEED_CACHE_CONTROL, method === 'HEAD');
  };
}

/** `xml` with its validators; Last-Modified has whole seconds (RFC 9110 §5.6.7). */
export function rendered(xml: string, updated: Date): RenderedFeed {
  return { body: xml, etag: strongEtag(Buffer.from(xml)), lastModified: updated.toUTCString() };
}

/**
 * Whether the client's copy is current (RFC 9110 §13.2.2): `If-None-Match` decides when present;
 * otherwise `If-Modified-Since` at or after the feed's Last-Modified.
 */
export function notModified(req: GatewayRequest, feed: RenderedFeed): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, feed.etag);
  const since = req.headers['if-modified-since'];
  if (since === undefined) return false;
  const sinceMs = Date.parse(since);
  return !Number.isNaN(sinceMs) && Date.parse(feed.lastModified) <= sinceMs;
}

function send(req: GatewayRequest, res: ServerResponse, feed: RenderedFeed, cacheControl: string, headOnly: boolean): void {
  if (res.headersSent || res.destroyed) return;
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('ETag', feed.etag);
  res.setHeader('Last-Modified', feed.lastModified);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // The private feed's URL must not travel on to the sites its entries link to.
  if (cacheControl === PRIVATE_FEED_CACHE_CONTROL) res.setHeader('Referrer-Policy', 'no-referrer');
  if (notModified(req, feed)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', ATOM_MEDIA_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(feed.body));
  res.end(headOnly ? undefined : feed.body);
}

function notFound(res: ServerResponse): void {
  sendPage(res, 404, layout('Not found', html`<p>There is no such feed.</p>`));
}

function methodNotAllowed(res: ServerResponse, method: string): void {
  sendPage(res, 405, layout('Method not allowed', html`<p>${method} is not allowed here; feeds answer GET and HEAD.</p>`), { headers: { Allow: ALLOWED_METHODS } });
}

/**
 * A feed that could not be built: its subject missing or not public (NOT_FOUND, or a token or id
 * the service refuses) is 404; a backend outage 503; anything else 500, logged with its cause.
 */
function failed(res: ServerResponse, error: unknown, logger: Logger): void {
  if (isAppError(error) && (error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.INVALID_ARGUMENT || error.code === ErrorCode.PERMISSION_DENIED)) return notFound(res);
  const { status } = toErrorResponse(error);
  if (status === 503) {
    sendPage(res, 503, layout('Unavailable', html`<p>The feed is unavailable right now; try again later.</p>`), { headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } });
    return;
  }
  logger.error({ err: error }, 'feed failed');
  sendPage(res, 500, layout('Server error', html`<p>The feed could not be built.</p>`));
}
