import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { eventsMigrations, type EventConsumer, type EventPayloadInit } from '@inkwell/events';
import { createGrpcClient, type GrpcClient, type GrpcServer } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { ChannelListener, createPool, migrate } from '@inkwell/pg';
import { NotificationService as NotificationRpcs } from '@inkwell/proto/messaging';
import { RelationsService, UsersService } from '@inkwell/proto/users';
import { callAs, createTestTopics, dropSchemas, ensureDatabase, KeyRing, stackEnv, type TestTopics } from '@inkwell/testing';
import { createNotificationEventsConsumer } from '../src/consumers/notification-events.consumer.js';
import { FANOUT_CHANNEL, NotificationFanoutRepository } from '../src/repositories/notification-fanout.repository.js';
import { NotificationRepository } from '../src/repositories/notification.repository.js';
import { PrivateMessageRepository } from '../src/repositories/private-message.repository.js';
import { UserDirectoryRepository } from '../src/repositories/user-directory.repository.js';
import { UserRelationsRepository } from '../src/repositories/user-relations.repository.js';
import { createMessagingServer } from '../src/server.js';
import { NotificationFanoutService } from '../src/services/notification-fanout.service.js';
import { NotificationRetentionService } from '../src/services/notification-retention.service.js';
import { NotificationService } from '../src/services/notification.service.js';
import { PrivateMessageService } from '../src/services/private-message.service.js';

const SCHEMA = 'messaging';

/** The topics of the notifications consumer, by the production topic they stand for. */
export type TopicLabel = 'follows' | 'stories' | 'chapters' | 'comments' | 'items' | 'blog' | 'messages';
const LABELS: readonly TopicLabel[] = ['follows', 'stories', 'chapters', 'comments', 'items', 'blog', 'messages'];

/** The notifications side of the messaging service over gRPC, fed by throwaway topics. */
export interface NotificationStack {
  /** NotificationService as the gateway calls it. */
  client: GrpcClient<typeof NotificationRpcs>;
  /** A client whose calls come from another issuer than the gateway. */
  otherIssuer: GrpcClient<typeof NotificationRpcs>;
  /** Pool on the messaging schema (fixtures such as back-dated notifications). */
  pool: pg.Pool;
  /** Sends an event to the topic standing for `label`; returns its event id. */
  send(label: TopicLabel, key: string, payload: EventPayloadInit, options?: { eventId?: string; occurredAt?: Date }): Promise<string>;
  /** Whether the consumer has handled everything sent so far (every topic). */
  consumed(): Promise<boolean>;
  /** Whether no fan-out is queued. */
  fannedOut(): Promise<boolean>;
  retention: NotificationRetentionService;
  stop(): Promise<void>;
}

/** Call options of a signed-in user with the read_notifications scope (or the scopes given). */
export function asUser(userId: string, scopes: readonly string[] = ['read_notifications']): ReturnType<typeof callAs> {
  return callAs({ userId, scopes: [...scopes] });
}

/**
 * Migrates the messaging schema of `database` (dropped first), starts the messaging gRPC server on
 * port 0, the notifications consumer on throwaway topics, and the fan-out worker with chunks of
 * `chunkSize` recipients. Private messages are not exercised: their users client is never called.
 */
export async function startNotificationStack(database: string, chunkSize = 1_000): Promise<NotificationStack> {
  const logger = createLogger('messaging-notifications-test');
  const url = await ensureDatabase(stackEnv().databaseUrl, database);
  await dropSchemas(url, [SCHEMA]);
  const pool = createPool({ connectionString: url, schema: SCHEMA, settings: { jit: 'off' } });
  const keys = KeyRing.generate();
  let topics: TestTopics | undefined;
  let consumer: EventConsumer | undefined;
  let server: GrpcServer | undefined;
  const fanoutRepository = new NotificationFanoutRepository(pool);
  // Woken by the NOTIFY of a queued fan-out only, as in production: the safety-net poll is longer than any test waits.
  const listener = new ChannelListener({ pool, channel: FANOUT_CHANNEL, onNotification: () => fanout.wake(), logger });
  const fanout = new NotificationFanoutService(fanoutRepository, logger, { chunkSize, idleIntervalMs: 50, listeningIntervalMs: 600_000, isListening: () => listener.isListening });
  try {
    await migrate(pool, { schema: SCHEMA, directory: fileURLToPath(new URL('../migrations', import.meta.url)), extra: eventsMigrations, logger });
    const notificationRepository = new NotificationRepository(pool);
    const retention = new NotificationRetentionService(notificationRepository, logger);
    const unusedUsers = createGrpcClient(UsersService, '127.0.0.1:9', keys.clientOptions('messaging'));
    const messages = new PrivateMessageService(
      new PrivateMessageRepository(pool),
      new UserDirectoryRepository(unusedUsers),
      new UserRelationsRepository(createGrpcClient(RelationsService, '127.0.0.1:9', keys.clientOptions('messaging'))),
    );
    server = createMessagingServer({ logger, verifier: keys.verifier('messaging'), messages, notifications: new NotificationService(notificationRepository) });
    const port = await server.listen('127.0.0.1:0');
    const client = createGrpcClient(NotificationRpcs, `127.0.0.1:${port}`, keys.clientOptions('gateway'));
    const otherIssuer = createGrpcClient(NotificationRpcs, `127.0.0.1:${port}`, keys.clientOptions('stories'));
    const opened = await createTestTopics('messaging-notifications', LABELS);
    topics = opened;
    consumer = createNotificationEventsConsumer({ kafka: opened.kafka, pool, logger, topics: opened.topics, groupId: opened.groupId });
    await consumer.start();
    await listener.start();
    fanout.start();
    const running = { server, consumer, topics: opened };
    const topicOf = (label: TopicLabel) => opened.topics[LABELS.indexOf(label)]!;
    // A topic nothing was sent to has no offset to commit: only those sent to are awaited.
    const sentTo = new Set<string>();
    return {
      client,
      otherIssuer,
      pool,
      retention,
      send: (label, key, payload, options) => {
        sentTo.add(topicOf(label));
        return opened.sendEvent(topicOf(label), key, payload, options);
      },
      async consumed() {
        for (const topic of sentTo) if (!(await opened.consumed(topic))) return false;
        return true;
      },
      async fannedOut() {
        return (await fanoutRepository.queued()) === 0;
      },
      async stop() {
        client.close();
        otherIssuer.close();
        unusedUsers.close();
        await fanout.stop();
        listener.stop();
        await running.consumer.stop();
        await running.topics.close();
        await running.server.shutdown(1_000);
        await pool.end();
      },
    };
  } catch (error) {
    await fanout.stop();
    listener.stop();
    await consumer?.stop();
    await topics?.close();
    await server?.shutdown(1_000);
    await pool.end();
    throw error;
  }
}
