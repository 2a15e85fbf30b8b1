import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventConsumer, EventPayloadInit } from '@inkwell/events';
import { createKnownStoryConsumer } from '@inkwell/known-stories';
import { StorySnapshotSchema } from '@inkwell/proto/stories';
import { createTestTopics, eventually, type TestTopics } from '@inkwell/testing';
import { logger, startBlogHarness, user, type BlogHarness } from './harness.js';

function storyEvent(kind: 'storyCreated' | 'storyUpdated' | 'storyDeleted', storyId: string, published: boolean): EventPayloadInit {
  const story = create(StorySnapshotSchema, { storyId, authorId: '1', title: 'A story', published });
  return { case: kind, value: { story } } as EventPayloadInit;
}

// How the copy itself orders, deduplicates and finalises states is tested once, in @inkwell/known-stories.
describe('posts link the stories that the stories events say are published', () => {
  let h: BlogHarness;
  let kafka: TestTopics;
  let topic: string;
  let consumer: EventConsumer;

  beforeAll(async () => {
    h = await startBlogHarness('inkwell_test_blog_consumer');
    kafka = await createTestTopics('blog-consumer', ['stories']);
    topic = kafka.topics[0]!;
    consumer = createKnownStoryConsumer({ service: 'blog', kafka: kafka.kafka, pool: h.pool, logger, topics: [topic], groupId: kafka.groupId });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await kafka?.close();
    await h?.close();
  });

  const send = (payload: EventPayloadInit, key: string, occurredAt: Date) => kafka.sendEvent(topic, key, payload, { occurredAt });
  const consumed = () => eventually(() => kafka.consumed(topic), { timeoutMs: 20_000, what: 'the consumer' });

  it('lets a post link a story once its StoryUpdated says published, and not after it is deleted', async () => {
    const t0 = Date.now();
    await send(storyEvent('storyCreated', '9001', false), '9001', new Date(t0));
    await consumed();
    await expect(h.client.createBlogPost({ title: 't', content: 'c', storyIds: ['9001'] }, user('1'))).rejects.toMatchObject({ details: [{ pointer: '/data/relationships/stories' }] });

    await send(storyEvent('storyUpdated', '9001', true), '9001', new Date(t0 + 1));
    await consumed();
    const { blogPost } = await h.client.createBlogPost({ title: 't', content: 'c', storyIds: ['9001'] }, user('1'));
    expect(blogPost?.storyIds).toEqual(['9001']);

    await send(storyEvent('storyDeleted', '9001', true), '9001', new Date(t0 + 2));
    await consumed();
    expect((await h.client.getBlogPost({ id: blogPost!.id }, user('2'))).blogPost?.storyIds).toEqual([]);
  });
});
