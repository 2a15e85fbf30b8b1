import { createHash } from 'node:crypto';
import type { GrpcClient } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { UsersService } from '@inkwell/proto/users';
import type { WebhookService } from '@inkwell/proto/webhooks';
import type { Redis } from '@inkwell/redis';
import { Counter, type Registry } from 'prom-client';
import type { GatewayConfig } from '../config.js';
import { apiPreflight, createApiCorsPolicy, oauthPreflight, type PreflightLookupGate } from '../cors/cors.middleware.js';
import { WebOrigins } from '../cors/web-origins.js';
import type { EgApp, EgPolicy, Middleware } from '../eg/eg.types.js';
import { registerAuthorizeRoutes } from '../authserver/oauth/authorize.routes.js';
import { createOAuthFailureBudget } from '../authserver/oauth/failure-budget.middleware.js';
import { registerIntrospectRoutes } from '../authserver/oauth/introspect.routes.js';
import { registerMetadataRoutes } from '../authserver/oauth/metadata.routes.js';
import { registerRevokeRoutes } from '../authserver/oauth/revoke.routes.js';
import { registerTokenRoutes } from '../authserver/oauth/token.routes.js';
import { registerDebugCallbackPage } from '../authserver/pages/debug-callback.page.js';
import { registerAuthorizationsPage } from '../authserver/pages/authorizations.page.js';
import { registerDeveloperPage } from '../authserver/pages/developer.page.js';
import { registerWebhooksPage } from '../authserver/pages/webhooks.page.js';
import { createPageContext } from '../authserver/pages/page-context.js';
import { SessionStore } from '../authserver/pages/session.store.js';
import { registerAccountPages } from '../authserver/pages/signin.page.js';
import { VisitorCsrfKey } from '../authserver/pages/visitor-csrf.js';
import { createBearerAuthPolicy } from '../eg/policies/bearer-auth.policy.js';
import { createBenchNoAuthPolicy } from '../eg/policies/bench-noauth.policy.js';
import { createCallerSharePolicy } from '../eg/policies/caller-share.policy.js';
import { createRateLimitPolicy } from '../eg/policies/rate-limit.policy.js';
import { createRequireAuthPolicy } from '../eg/policies/require-auth.policy.js';
import { CredentialThrottle } from '../ratelimit/credential.throttle.js';
import { CallerGate } from '../ratelimit/caller-gate.js';
import { FixedWindowLimiter } from '../ratelimit/fixed-window.limiter.js';
import { AccessTokenResolver } from './access-token.resolver.js';
import { clientAddress } from './client-address.js';
import { subscribeToRevocations } from './revocation.subscriber.js';

/** What the authentication side of the gateway needs from main.ts. */
export interface AuthEdgeDeps {
  readonly config: GatewayConfig;
  readonly users: GrpcClient<typeof UsersService>;
  /** The developer page's webhook endpoints of the user's apps (docs/api/webhooks.md). */
  readonly webhooks: GrpcClient<typeof WebhookService>;
  readonly redis: Redis;
  /** The gateway's metrics registry. */
  readonly registry: Registry;
  readonly logger: Logger;
}

/** The authentication side of the gateway, assembled. */
export interface AuthEdge {
  /** The policies of gateway.config.yml's pipelines that come before api-dispatch: bearer-auth, api-cors, rate-limit, require-auth, caller-share, bench-noauth. */
  readonly policies: readonly EgPolicy[];
  /**
   * The API's CORS preflights and `Vary: Origin` (docs/api/auth.md, "Browser apps (CORS)"), for
   * /api/v1 before its pipeline, mounted after the API's cache headers (it adds to their `Vary`).
   */
  readonly apiPreflight: Middleware;
  /** Registers the OAuth endpoints and the pages on express-gateway's app (after request-context). */
  registerRoutes(app: EgApp): void;
  /** Ends the revocation subscription (at shutdown). */
  close(): Promise<void>;
}

/**
 * Assembles authentication (docs/api/auth.md, "The token check on API requests") and rate limits (docs/api/auth.md, "Rate limits") at the edge from the configuration: the token resolver with its
 * cache and the Redis revocation subscription, the fixed-window limiter, the three API policies,
 * the OAuth 2.0 endpoints (authorize, token, revoke, introspect, metadata) and the account,
 * consent and developer pages with their Redis sessions. Kept out of main.ts so that the
 * composition root stays a list of parts; nothing here starts work except the subscription.
 */
export function createAuthEdge({ config, users, webhooks, redis, registry, logger }: AuthEdgeDeps): AuthEdge {
  const issuer = config.publicBaseUrl;
  const lookups = new Counter({
    name: 'gateway_token_lookups_total',
    help: 'Access tokens looked up in the users service (cache misses).',
    registers: [registry],
  });
  const resolver = new AccessTokenResolver({
    users,
    cacheSize: config.tokenCache.size,
    ttlMs: config.tokenCache.ttlMs,
    deadlineMs: config.grpcDeadlineMs,
    onLookup: () => lookups.inc(),
  });
  const origins = new WebOrigins(users, { deadlineMs: config.grpcDeadlineMs });
  const revocations = subscribeToRevocations(redis, { revoked: (hashes) => resolver.evict(hashes), gap: () => resolver.evictAll() }, logger);
  const limiter = new FixedWindowLimiter(redis, { windowMs: config.rateLimit.windowMs, keyPrefix: rateLimitKeyPrefix(issuer) });
  const failOpen = new Counter({
    name: 'gateway_rate_limit_fail_open_total',
    help: 'API requests let through without a rate-limit count because Redis was unavailable or failed.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // A preflight with an origin not remembered is counted on the address's window before the lookup (as an unknown token is).
  const preflightGate: PreflightLookupGate = async (req) => {
    const counted = await limiter.hit(`a:${clientAddress(req, config.trustProxy)}`, config.rateLimit.anonymousMax).catch(() => undefined);
    return counted?.exceeded !== true;
  };
  const throttle = new CredentialThrottle(redis, rateLimitKeyPrefix(issuer), config.credentials);
  const sessions = new SessionStore(redis, { signedInTtlSeconds: config.sessionTtlSeconds });
  const pages = createPageContext({
    sessions,
    visitorCsrfKey: new VisitorCsrfKey(redis, `inkwell:pages:${deploymentTag(issuer)}:csrf-key`),
    cookies: { secure: config.cookieSecure, publicHttps: issuer.startsWith('https:'), trustProxy: config.trustProxy },
    publicBaseUrl: issuer,
    logger,
  });

  return {
    policies: [
      createBearerAuthPolicy({ resolver, limiter, tokenLimit: config.rateLimit.tokenMax, anonymousLimit: config.rateLimit.anonymousMax, trustProxy: config.trustProxy }),
      createApiCorsPolicy(origins),
      createRateLimitPolicy({ limiter, logger, failOpen }),
      createRequireAuthPolicy(logger),
      createCallerSharePolicy(
        new CallerGate({
          ...config.callerShare,
          // Lines are short-lived: a request refused after the whole wait means something held its line (logged with its state).
          onExpired: (caller, line) => logger.warn({ caller, ...line }, 'a request waited in its caller\'s line for the longest wait and was refused'),
        }),
      ),
      createBenchNoAuthPolicy(config.benchNoAuth),
    ],
    apiPreflight: apiPreflight(origins, preflightGate),
    registerRoutes(app) {
      app.use(oauthPreflight(origins, preflightGate));
      app.use(createOAuthFailureBudget(throttle, config.trustProxy));
      registerMetadataRoutes(app, issuer);
      registerAuthorizeRoutes(app, { pages, users, issuer, logger });
      registerTokenRoutes(app, { users, logger, origins });
      registerRevokeRoutes(app, { users, evict: (hashes) => resolver.evict(hashes), logger, origins });
      registerIntrospectRoutes(app, { users, issuer, logger, origins });
      registerAccountPages(app, { pages, users, throttle, trustProxy: config.trustProxy });
      registerDeveloperPage(app, { pages, users, issuer });
      registerWebhooksPage(app, { pages, users, webhooks });
      registerAuthorizationsPage(app, { pages, users });
      registerDebugCallbackPage(app, issuer);
    },
    close: () => revocations.close(),
  };
}

/**
 * The Redis key prefix of the rate-limit windows: `inkwell:rl:<8 hex of sha256(PUBLIC_BASE_URL)>:`.
 * Every gateway of one API deployment shares its windows (they share PUBLIC_BASE_URL), while two
 * deployments on one Redis (staging and production, or the systems of concurrent test runs)
 * never count each other's requests.
 */
export function rateLimitKeyPrefix(publicBaseUrl: string): string {
  return `inkwell:rl:${deploymentTag(publicBaseUrl)}:`;
}

/** 8 hex of sha256(PUBLIC_BASE_URL): tells deployments sharing one Redis apart in key names. */
function deploymentTag(publicBaseUrl: string): string {
  return createHash('sha256').update(publicBaseUrl).digest('hex').slice(0, 8);
}
