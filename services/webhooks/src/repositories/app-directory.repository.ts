import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';

/** At most this many apps per GetUserAppScopes call (its request rule). */
const APPS_PER_CALL = 100;

/**
 * What the webhooks service asks the users service, which owns apps and authorizations
 * (docs/api/webhooks.md, "Design"): who owns an app, and which scopes a user grants apps now.
 * Nothing is cached, so that a revoked authorization stops deliveries at once.
 */
export class AppDirectoryRepository {
  constructor(private readonly users: GrpcClient<typeof UsersService>) {}

  /** The owner of app `appId`: a user id, null for an operator's app, undefined when there is no such app. */
  async ownerOf(appId: string): Promise<string | null | undefined> {
    try {
      const { client } = await this.users.getClient({ clientId: appId });
      if (!client) return undefined;
      return client.ownerUserId ?? null;
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.NOT_FOUND) return undefined;
      throw error;
    }
  }

  /** The scopes `userId` grants each of `appIds` now; apps they have not authorized are left out. */
  async scopesOf(userId: string, appIds: readonly string[]): Promise<Map<string, string[]>> {
    const granted = new Map<string, string[]>();
    for (let start = 0; start < appIds.length; start += APPS_PER_CALL) {
      const { apps } = await this.users.getUserAppScopes({ userId, appIds: appIds.slice(start, start + APPS_PER_CALL) });
      for (const app of apps) granted.set(app.appId, app.scopes);
    }
    return granted;
  }
}
