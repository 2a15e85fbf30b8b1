import { createGrpcClient } from '@inkwell/grpc';
import { Topics } from '@inkwell/proto/topics';
import { UsersService } from '@inkwell/proto/users';
import { runService } from '@inkwell/service';
import { loadMessagingConfig } from './config.js';
import { PrivateMessageRepository } from './repositories/private-message.repository.js';
import { UserDirectoryRepository } from './repositories/user-directory.repository.js';
import { MESSAGING_MIGRATIONS, MESSAGING_SCHEMA } from './schema.js';
import { createMessagingServer } from './server.js';
import { PrivateMessageService } from './services/private-message.service.js';

/** Composition root of the messaging service: users client → repositories → services → server on the common boot (@inkwell/service). */
runService({
  name: 'messaging',
  prefix: 'MESSAGING',
  loadConfig: loadMessagingConfig,
  database: { schema: MESSAGING_SCHEMA, migrations: MESSAGING_MIGRATIONS, settings: { jit: 'off' } },
  markdown: true,
  topics: [Topics.messagingMessage],
  async wire({ config, logger, tls, auth, pool, metrics }) {
    const usersClient = createGrpcClient(UsersService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer, tls });
    const messages = new PrivateMessageService(new PrivateMessageRepository(pool), new UserDirectoryRepository(usersClient));
    return {
      server: createMessagingServer({ logger, verifier: auth.verifier, metrics, messages }),
      closers: { beforePool: [{ name: 'users client', close: () => usersClient.close() }] },
    };
  },
});
