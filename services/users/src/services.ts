import type { Logger } from '@inkwell/logging';
import type { Redis } from '@inkwell/redis';
import type pg from 'pg';
import { AuthorizationCodeRepository } from './repositories/authorization-code.repository.js';
import { AuthorizationRepository } from './repositories/authorization.repository.js';
import { FollowRepository } from './repositories/follow.repository.js';
import { ModerationRepository } from './repositories/moderation.repository.js';
import { OAuthClientRepository } from './repositories/oauth-client.repository.js';
import { RelationRepository } from './repositories/relation.repository.js';
import { RedisRelationsChangeNotifier } from './repositories/relations-change.notifier.js';
import { RedisRevocationNotifier } from './repositories/revocation.notifier.js';
import { SignInThrottleRepository } from './repositories/sign-in-throttle.repository.js';
import { TokenRepository } from './repositories/token.repository.js';
import { UserRepository } from './repositories/user.repository.js';
import { AccountService } from './services/account.service.js';
import { AuthorizationService } from './services/authorization.service.js';
import { FollowService } from './services/follow.service.js';
import { ModerationQueueService } from './services/moderation.service.js';
import { OAuthClientService } from './services/oauth-client.service.js';
import { OAuthTokenService } from './services/oauth-token.service.js';
import { PersonalTokenService } from './services/personal-token.service.js';
import { RelationService } from './services/relation.service.js';

/** Every service of the users domain, wired to its repositories. */
export interface UsersServices {
  accounts: AccountService;
  follows: FollowService;
  clients: OAuthClientService;
  tokens: OAuthTokenService;
  personalTokens: PersonalTokenService;
  authorizations: AuthorizationService;
  /** Blocks and mutes (docs/api/safety.md). */
  relations: RelationService;
  /** Reports and the operators' moderation queue (docs/api/safety.md, "Reports and moderation"). */
  moderation: ModerationQueueService;
}

/**
 * Wires repositories → services over `pool` (a pool of the users schema), announcing revoked
 * tokens and changed relations to other processes through `redis`. Shared by the two composition
 * roots, the gRPC server (main.ts) and the operator CLI, and by the tests.
 */
export function createUsersServices(pool: pg.Pool, redis: Redis, logger: Logger): UsersServices {
  const notifier = new RedisRevocationNotifier(redis, logger);
  const users = new UserRepository(pool);
  const tokens = new TokenRepository(pool);
  const clients = new OAuthClientRepository(pool);
  const oauthTokens = new OAuthTokenService(tokens, new AuthorizationCodeRepository(pool), clients, users, notifier);
  return {
    accounts: new AccountService(users, new SignInThrottleRepository(pool)),
    follows: new FollowService(new FollowRepository(pool), users),
    clients: new OAuthClientService(clients, users, notifier),
    tokens: oauthTokens,
    personalTokens: new PersonalTokenService(tokens, users, notifier),
    authorizations: new AuthorizationService(new AuthorizationRepository(pool), notifier),
    relations: new RelationService(new RelationRepository(pool), new RedisRelationsChangeNotifier(redis, logger)),
    moderation: new ModerationQueueService(new ModerationRepository(pool), oauthTokens),
  };
}
