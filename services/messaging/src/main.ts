import { createGrpcClient } from '@inkwell/grpc';
import { ChannelListener } from '@inkwell/pg';
import { Topics } from '@inkwell/proto/topics';
import { RelationsService, UsersService } from '@inkwell/proto/users';
import { cachedRelationsClient, relationsGenerations } from '@inkwell/relations';
import { runService } from '@inkwell/service';
import { loadMessagingConfig } from './config.js';
import { createModerationConsumer } from './consumers/moderation.consumer.js';
import { createNotificationEventsConsumer } from './consumers/notification-events.consumer.js';
import { FANOUT_CHANNEL, NotificationFanoutRepository } from './repositories/notification-fanout.repository.js';
import { NotificationRepository } from './repositories/notification.repository.js';
import { PrivateMessageRepository } from './repositories/private-message.repository.js';
import { UserDirectoryRepository } from './repositories/user-directory.repository.js';
import { UserRelationsRepository } from './repositories/user-relations.repository.js';
import { MESSAGING_MIGRATIONS, MESSAGING_SCHEMA } from './schema.js';
import { createMessagingServer } from './server.js';
import { NotificationFanoutService } from './services/notification-fanout.service.js';
import { NotificationRetentionService } from './services/notification-retention.service.js';
import { NotificationService } from './services/notification.service.js';
import { PrivateMessageService } from './services/private-message.service.js';

/**
 * Composition root of the messaging service: users client → repositories → services → server on
 * the common boot (@inkwell/service); the notifications consumer reads the other services' topics,
 * and the fan-out worker and the retention purge run in the background.
 */
runService({
  name: 'messaging',
  prefix: 'MESSAGING',
  loadConfig: loadMessagingConfig,
  database: { schema: MESSAGING_SCHEMA, migrations: MESSAGING_MIGRATIONS, settings: { jit: 'off' } },
  markdown: true,
  topics: [Topics.messagingMessage],
  async wire({ config, logger, tls, auth, pool, kafka, metrics, redis }) {
    const usersClient = createGrpcClient(UsersService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer, tls });
    const relationsClient = createGrpcClient(RelationsService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer, tls });
    // Blocks and mutes are read on every inbox page: a copy per user while its generation in Redis is unchanged (docs/api/safety.md, "One source of truth").
    const relations = new UserRelationsRepository(cachedRelationsClient(relationsClient, relationsGenerations(redis())));
    const messageRepository = new PrivateMessageRepository(pool);
    const messages = new PrivateMessageService(messageRepository, new UserDirectoryRepository(usersClient), relations);
    const notificationRepository = new NotificationRepository(pool);
    const notifications = new NotificationService(notificationRepository, relations);
    // Queuing a fan-out NOTIFYs at commit: idle workers start at once instead of at their next poll.
    const fanoutListener = new ChannelListener({ pool, channel: FANOUT_CHANNEL, onNotification: () => fanout.wake(), logger });
    const fanout = new NotificationFanoutService(new NotificationFanoutRepository(pool), logger, {
      chunkSize: config.NOTIFICATION_FANOUT_CHUNK,
      workers: config.NOTIFICATION_FANOUT_WORKERS,
      isListening: () => fanoutListener.isListening,
    });
    const retention = new NotificationRetentionService(notificationRepository, logger);
    return {
      server: createMessagingServer({ logger, verifier: auth.verifier, metrics, messages, notifications }),
      consumers: [createNotificationEventsConsumer({ kafka, pool, logger }), createModerationConsumer({ kafka, messages: messageRepository, logger })],
      started: () => {
        void fanoutListener.start();
        fanout.start();
        retention.start();
      },
      closers: {
        beforePool: [
          { name: 'users client', close: () => usersClient.close() },
          { name: 'relations client', close: () => relationsClient.close() },
          { name: 'notification fan-out', close: () => fanout.stop() },
          { name: 'notification fan-out listener', close: () => fanoutListener.stop() },
          { name: 'notification retention', close: () => retention.stop() },
        ],
      },
    };
  },
});
