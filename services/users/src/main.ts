import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Topics } from '@inkwell/proto/topics';
import { runService } from '@inkwell/service';
import { loadUsersConfig } from './config.js';
import { createAuthoredContentConsumer } from './consumers/authored-content.consumer.js';
import { USERS_MIGRATIONS, USERS_SCHEMA } from './schema.js';
import { seedDemoData } from './seed/demo.seed.js';
import { createUsersServer } from './server.js';
import { createUsersServices } from './services.js';

/** How often idle sign-in back-off counters, and long-inactive tokens and codes, are deleted. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Composition root of the users service: repositories → services → server and consumer on the common boot (@inkwell/service). */
runService({
  name: 'users',
  prefix: 'USERS',
  loadConfig: loadUsersConfig,
  database: { schema: USERS_SCHEMA, migrations: USERS_MIGRATIONS },
  markdown: true,
  topics: [Topics.usersUser, Topics.usersFollow, Topics.usersModeration],
  async wire({ config, logger, auth, pool, kafka, metrics, redis }) {
    const services = createUsersServices(pool, redis(), logger);
    if (config.SEED_DEMO_DATA) {
      const credentials = await seedDemoData(services, logger);
      if (config.DEMO_CREDENTIALS_FILE !== undefined) {
        await mkdir(dirname(config.DEMO_CREDENTIALS_FILE), { recursive: true });
        await writeFile(config.DEMO_CREDENTIALS_FILE, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
      }
    }
    const prune = setInterval(() => {
      services.accounts.pruneSignInCounters().catch((error: unknown) => logger.warn({ err: error }, 'could not prune sign-in counters'));
      services.tokens.pruneInactive().then(
        (pruned) => logger.debug({ pruned }, 'pruned inactive tokens and codes'),
        (error: unknown) => logger.warn({ err: error }, 'could not prune inactive tokens and codes'),
      );
    }, PRUNE_INTERVAL_MS);
    prune.unref();
    // Beside the start, not before it: a sign-in that comes first makes the hash itself.
    services.accounts.prepare().catch((error: unknown) => logger.warn({ err: error }, 'could not prepare the sign-in dummy hash'));
    const docsClient = await services.clients.ensureDocsClient(config.PUBLIC_BASE_URL);
    logger.info({ clientId: docsClient.id, redirectUri: docsClient.redirectUris[0] }, 'API reference client ready');
    return {
      server: createUsersServer({ logger, services, verifier: auth.verifier, metrics }),
      consumers: [createAuthoredContentConsumer({ kafka, pool, logger })],
      closers: { beforeServer: [{ name: 'pruning', close: () => clearInterval(prune) }] },
    };
  },
});
