import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import type { Logger } from '@inkwell/logging';
import type { UsersServices } from '../services.js';

/** The demo accounts of `npm run dev`; their password is printed by the dev script. */
export const DEMO_PASSWORD = 'inkwell-demo-password';

const DEMO_USERS = [
  { name: 'ada', email: 'ada@example.org', bio: 'Writes **long** space operas, one chapter a week.' },
  { name: 'brontë', email: 'bronte@example.org', bio: 'Moors, mysteries and the occasional ghost.' },
  { name: 'cervantes', email: 'cervantes@example.org', bio: '' },
] as const;

/** The demo OAuth app (owned by ada) and the name of ada's demo personal token. */
export const DEMO_APP = {
  name: 'Inkwell demo app',
  redirectUris: ['http://127.0.0.1:8080/oauth/debug-callback', 'http://localhost:3000/callback'],
} as const;
const DEMO_TOKEN_NAME = 'demo token (npm run dev)';

/** What the demo seed hands to a newcomer: printed by `npm run dev`, never stored elsewhere. */
export interface DemoCredentials {
  user: { id: string; name: string; password: string };
  personalToken: { token: string; scopes: string[] };
  app: { clientId: string; clientSecret: string; redirectUris: string[]; scopes: string[] };
}

/** Creates the demo users unless they exist; running it twice changes nothing. */
export async function seedDemoUsers(services: UsersServices, logger: Logger): Promise<void> {
  for (const user of DEMO_USERS) {
    const seeded = await services.accounts.ensureUser({ ...user, password: DEMO_PASSWORD });
    logger.info({ userId: seeded.id, name: seeded.name }, 'demo user ready');
  }
}

/**
 * Seeds the demo users, then gives ada a fresh personal token with every scope and makes sure
 * the demo app exists with a fresh secret. Secrets exist in plaintext only when minted, so every
 * run mints new ones: ada's previous demo token is revoked (other tokens of hers are kept), and
 * the demo app keeps its client id but gets a new secret.
 */
export async function seedDemoData(services: UsersServices, logger: Logger): Promise<DemoCredentials> {
  await seedDemoUsers(services, logger);
  const ada = await services.accounts.findUser('ada');
  const asAda = { userId: ada.id, scopes: [] };
  for (const previous of await services.personalTokens.list(asAda)) {
    if (previous.name === DEMO_TOKEN_NAME) await services.personalTokens.revoke(asAda, previous.id);
  }
  const scopes = [...SCOPE_NAMES];
  const { token } = await services.personalTokens.create(asAda, { name: DEMO_TOKEN_NAME, scopes });

  const existing = (await services.clients.list(ada.id)).find((client) => client.name === DEMO_APP.name);
  let clientId: string;
  let clientSecret: string;
  if (existing?.confidential) {
    clientId = existing.id;
    clientSecret = await services.clients.rotateSecret(existing.id);
  } else {
    const created = await services.clients.create({ ownerUserId: ada.id, name: DEMO_APP.name, redirectUris: [...DEMO_APP.redirectUris], confidential: true });
    clientId = created.client.id;
    clientSecret = created.secret!;
  }
  logger.info({ userId: ada.id, clientId }, 'demo token and demo app ready');
  return {
    user: { id: ada.id, name: ada.name, password: DEMO_PASSWORD },
    personalToken: { token, scopes },
    app: { clientId, clientSecret, redirectUris: [...DEMO_APP.redirectUris], scopes },
  };
}
