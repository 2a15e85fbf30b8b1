import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { createKafka, decodeEnvelope, ensureTopics, namespaced, OutboxRelay } from '@inkwell/events';
import { createGrpcClient, type CallerContext, type GrpcClient, type GrpcServer } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { BookshelvesService } from '@inkwell/proto/bookshelves';
import { StoriesService } from '@inkwell/proto/stories';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import { callAs, dropSchemas, ensureDatabase, KeyRing, stackEnv } from '@inkwell/testing';
import type { Kafka } from 'kafkajs';
import { startStories, type StoriesHarness } from '../../stories/test/harness.js';
import { BOOKSHELVES_SCHEMA, openBookshelvesDatabase } from '../src/schema.js';
import { BookshelfItemRepository } from '../src/repositories/bookshelf-item.repository.js';
import { BookshelfRepository } from '../src/repositories/bookshelf.repository.js';
import { StoryDirectoryRepository } from '../src/repositories/story-directory.repository.js';
import { createBookshelvesServer } from '../src/server.js';
import { BookshelfItemService } from '../src/services/bookshelf-item.service.js';
import { BookshelfService } from '../src/services/bookshelf.service.js';

export const logger = createLogger('bookshelves-test');

/**
 * A bookshelves service on its own database, served over real gRPC on a free port, with a real
 * stories service (in-process, same database, its own schema) to answer GetStory, and the outbox
 * relay publishing to this harness's own Kafka namespace.
 */
export interface BookshelvesHarness {
  pool: pg.Pool;
  client: GrpcClient<typeof BookshelvesService>;
  stories: StoriesHarness;
  services: { shelves: BookshelfService; items: BookshelfItemService; directory: StoryDirectoryRepository };
  /** The relay's Kafka client (namespaced). */
  kafka: Kafka;
  /**
   * The events this service wrote to its outbox for `keys` on `topic`, as they reached Kafka
   * through the relay, in topic order; waits for all of them (fails after 20 s).
   */
  readEvents(topic: string, keys: readonly string[]): Promise<EventEnvelope[]>;
  close(): Promise<void>;
}

/** Starts the harness on database `name` (created if missing, the bookshelves and stories schemas dropped first). */
export async function startBookshelvesHarness(name: string): Promise<BookshelvesHarness> {
  const url = await ensureDatabase(stackEnv().databaseUrl, name);
  await dropSchemas(url, [BOOKSHELVES_SCHEMA]);
  const stories = await startStories(name);
  const pool = await openBookshelvesDatabase({ connectionString: url, logger });
  const kafka = createKafka({ brokers: stackEnv().kafkaBrokers, clientId: `bookshelves-test-${name}`, logger, namespace: `t-${randomUUID().slice(0, 8)}.` });
  await ensureTopics(kafka, [Topics.bookshelvesBookshelf, Topics.bookshelvesItem]);
  const relay = new OutboxRelay({ pool, kafka, schema: BOOKSHELVES_SCHEMA, logger });
  await relay.start();
  const shelfRepository = new BookshelfRepository(pool);
  // As in production: bookshelves calls stories with its own key, forwarding the caller.
  const storiesClient = createGrpcClient(StoriesService, stories.address, stories.keys.clientOptions('bookshelves'));
  const directory = new StoryDirectoryRepository(storiesClient);
  const shelves = new BookshelfService(shelfRepository);
  const items = new BookshelfItemService({ shelves: shelfRepository, items: new BookshelfItemRepository(pool), stories: directory });
  const keys = KeyRing.generate();
  const server: GrpcServer = createBookshelvesServer({ logger, verifier: keys.verifier('bookshelves'), shelves, items });
  const port = await server.listen('127.0.0.1:0');
  const client = createGrpcClient(BookshelvesService, `127.0.0.1:${port}`, keys.clientOptions('gateway'));
  return {
    pool,
    client,
    stories,
    services: { shelves, items, directory },
    kafka,
    async readEvents(topic, keys) {
      const { rows } = await pool.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE topic = $1 AND key = ANY($2::text[])', [topic, keys]);
      const wanted = new Set(rows.map((row) => row.event_id));
      const found: EventEnvelope[] = [];
      const consumer = kafka.consumer({ groupId: `t-${randomUUID()}`, maxWaitTimeInMs: 250 });
      await consumer.connect();
      try {
        await consumer.subscribe({ topic: namespaced(kafka, topic), fromBeginning: true });
        let arrived: () => void = () => {};
        const enough = new Promise<void>((resolve) => (arrived = resolve));
        await consumer.run({
          eachMessage: async ({ message }) => {
            const envelope = decodeEnvelope(message.value);
            if (envelope !== undefined && wanted.has(envelope.eventId) && found.push(envelope) >= wanted.size) arrived();
          },
        });
        if (wanted.size > 0) {
          await Promise.race([enough, new Promise((_, reject) => setTimeout(() => reject(new Error(`${found.length} of ${wanted.size} events on ${topic}`)), 20_000))]);
        }
        return found;
      } finally {
        await consumer.disconnect();
      }
    },
    async close() {
      client.close();
      storiesClient.close();
      await server.shutdown(1_000);
      await relay.stop();
      await pool.end();
      await stories.close();
    },
  };
}

/** All the scopes a bookshelf owner may hold. */
export const ALL_SCOPES = ['read_bookshelves', 'write_bookshelves', 'read_stories', 'write_stories'];

/** The caller of a user token with the given scopes (default: every bookshelf and story scope). */
export function user(userId: string, scopes: readonly string[] = ALL_SCOPES): { caller: CallerContext } {
  return callAs({ userId, appId: 'test-app', scopes });
}

/** The caller of an app-only token. */
export function app(appId = 'test-app'): { caller: CallerContext } {
  return callAs({ appId, scopes: [] });
}

/** A user id no other test file uses (ids are per database anyway; this keeps tests within a file apart). */
export function freshUserId(): string {
  return String(1_000_000 + Math.floor(Math.random() * 1_000_000_000));
}

