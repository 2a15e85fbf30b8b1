import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceDatabase, type EventConsumer, type EventPayloadInit } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { StorySnapshotSchema } from '@inkwell/proto/stories';
import { createTestTopics, dropSchemas, ensureDatabase, eventually, stackEnv, type TestTopics } from '@inkwell/testing';
import { createKnownStoryConsumer, KnownStoryRepository } from '../src/index.js';

const SCHEMA = 'known_stories_test';
const TABLE = 'story_copies';
const logger = createLogger('known-stories-test');

type Kind = 'storyCreated' | 'storyUpdated' | 'storyDeleted';

/** A story event as the stories service writes it, its snapshot versioned by `dateModified`. */
function storyEvent(kind: Kind, storyId: string, published: boolean, dateModified?: Date): EventPayloadInit {
  const story = create(StorySnapshotSchema, { storyId, authorId: '1', title: 'A story', published, ...(dateModified ? { dateModified: timestampFromDate(dateModified) } : {}) });
  return { case: kind, value: { story } } as EventPayloadInit;
}

describe('the known-story consumer keeps a service’s copy of the stories', () => {
  let pool: pg.Pool;
  let kafka: TestTopics;
  let topic: string;
  let consumer: EventConsumer;
  let copy: KnownStoryRepository;

  beforeAll(async () => {
    const databaseUrl = await ensureDatabase(stackEnv().databaseUrl, 'inkwell_test_known_stories');
    await dropSchemas(databaseUrl, [SCHEMA]);
    pool = await openServiceDatabase({ service: 'known-stories-test', schema: SCHEMA, migrations: fileURLToPath(new URL('./migrations', import.meta.url)), connectionString: databaseUrl, logger });
    kafka = await createTestTopics('known-stories', ['stories']);
    topic = kafka.topics[0]!;
    copy = new KnownStoryRepository(pool, TABLE);
    consumer = createKnownStoryConsumer({ service: 'known-stories-test', kafka: kafka.kafka, pool, logger, topics: [topic], groupId: kafka.groupId, store: (client) => new KnownStoryRepository(client, TABLE) });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await kafka?.close();
    await pool?.end();
  });

  const send = (payload: EventPayloadInit, key: string, occurredAt: Date, eventId: string = randomUUID()) => kafka.sendEvent(topic, key, payload, { eventId, occurredAt });
  const consumed = () => eventually(() => kafka.consumed(topic), { timeoutMs: 20_000, what: 'the consumer' });

  async function state(storyId: string): Promise<{ published: boolean; deleted: boolean } | undefined> {
    const { rows } = await pool.query<{ published: boolean; deleted: boolean }>(`SELECT published, deleted FROM ${TABLE} WHERE id = $1`, [storyId]);
    return rows[0];
  }

  it('counts a story as published from the event that publishes it until it is deleted', async () => {
    const t0 = Date.now();
    await send(storyEvent('storyCreated', '9001', false), '9001', new Date(t0));
    await consumed();
    expect(await copy.publishedAmong(['9001', '9999'])).toEqual(new Set());

    await send(storyEvent('storyUpdated', '9001', true), '9001', new Date(t0 + 1));
    await consumed();
    expect(await copy.publishedAmong(['9001', '9999'])).toEqual(new Set(['9001']));

    await send(storyEvent('storyDeleted', '9001', true), '9001', new Date(t0 + 2));
    await consumed();
    expect(await copy.publishedAmong(['9001'])).toEqual(new Set());
    expect(await state('9001')).toEqual({ published: false, deleted: true });
  });

  it('ignores changes older than the one recorded, anything after deletion, redeliveries and other events', async () => {
    const t0 = Date.now();
    await send(storyEvent('storyCreated', '9002', false), '9002', new Date(t0));
    await send(storyEvent('storyUpdated', '9002', true), '9002', new Date(t0 + 10));
    // A stale update (older occurred_at) arriving late must not unpublish it.
    await send(storyEvent('storyUpdated', '9002', false), '9002', new Date(t0 + 5));
    const first = await send(storyEvent('storyCreated', '9003', true), '9003', new Date(t0));
    await send(storyEvent('storyDeleted', '9003', true), '9003', new Date(t0 + 20));
    await send(storyEvent('storyUpdated', '9003', true), '9003', new Date(t0 + 30));
    // Redelivering the first event (same id) changes nothing either.
    await send(storyEvent('storyCreated', '9003', true), '9003', new Date(t0 + 40), first);
    await send({ case: 'storyViewed', value: { storyId: '9004', chapterId: '1' } }, '9004', new Date(t0));
    await consumed();
    expect(await state('9002')).toEqual({ published: true, deleted: false });
    expect(await state('9003')).toEqual({ published: false, deleted: true });
    expect(await state('9004')).toBeUndefined();
  });

  it('orders the states of one story by the snapshot’s date_modified when it has one', async () => {
    const t0 = Date.now();
    await send(storyEvent('storyUpdated', '9005', true, new Date(t0 + 10)), '9005', new Date(t0));
    // Sent later but modified earlier: a replay of an older snapshot.
    await send(storyEvent('storyUpdated', '9005', false, new Date(t0)), '9005', new Date(t0 + 20));
    await consumed();
    expect(await state('9005')).toEqual({ published: true, deleted: false });
  });
});
