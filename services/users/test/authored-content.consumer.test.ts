import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { EventConsumer, EventPayloadInit } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { BlogPostSnapshotSchema } from '@inkwell/proto/blog';
import { StorySnapshotSchema } from '@inkwell/proto/stories';
import { createTestTopics, eventuallyValue, type TestTopics } from '@inkwell/testing';
import { createAuthoredContentConsumer } from '../src/consumers/authored-content.consumer.js';
import { startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

const logger = createLogger('users-test');

function story(kind: 'storyCreated' | 'storyUpdated' | 'storyDeleted', storyId: string, authorId: string, published: boolean): EventPayloadInit {
  return { case: kind, value: { story: create(StorySnapshotSchema, { storyId, authorId, published }) } } as EventPayloadInit;
}

function post(kind: 'blogPostCreated' | 'blogPostDeleted', blogPostId: string, authorId: string, sitePost = false): EventPayloadInit {
  return { case: kind, value: { blogPost: create(BlogPostSnapshotSchema, { blogPostId, authorId, sitePost }) } } as EventPayloadInit;
}

describe('num_stories and num_blog_posts follow the stories and blog events', () => {
  let h: UsersHarness;
  let kafka: TestTopics;
  let storyTopic: string;
  let blogTopic: string;
  let consumer: EventConsumer;
  let authorId: string;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_content');
    const author = await h.services.accounts.register({ name: uniqueName('author'), email: `${uniqueName('a')}@example.org`, password: 'a-long-password' });
    authorId = author.id;
    kafka = await createTestTopics('users-content', ['stories', 'blog']);
    [storyTopic, blogTopic] = kafka.topics as [string, string];
    consumer = createAuthoredContentConsumer({ kafka: kafka.kafka, pool: h.pool, logger, topics: kafka.topics, groupId: kafka.groupId });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await kafka?.close();
    await h?.close();
  });

  const send = (topic: string, key: string, payload: EventPayloadInit, eventId: string = randomUUID()) => kafka.sendEvent(topic, key, payload, { eventId });

  async function counts(): Promise<{ num_stories: number; num_blog_posts: number }> {
    const { rows } = await h.pool.query<{ num_stories: number; num_blog_posts: number }>('SELECT num_stories, num_blog_posts FROM users WHERE id = $1', [authorId]);
    return rows[0]!;
  }

  /** Waits until the author's counts are `expected` (the consumer catches up), failing with the last counts seen. */
  async function countsBecome(expected: { num_stories: number; num_blog_posts: number }): Promise<void> {
    await eventuallyValue(counts, (seen) => JSON.stringify(seen) === JSON.stringify(expected), { timeoutMs: 15_000, what: `counts ${JSON.stringify(expected)}` });
  }

  it('counts published stories only, through publish, unpublish and delete', async () => {
    await send(storyTopic, '101', story('storyCreated', '101', authorId, false));
    await send(storyTopic, '102', story('storyCreated', '102', authorId, true));
    await countsBecome({ num_stories: 1, num_blog_posts: 0 });
    await send(storyTopic, '101', story('storyUpdated', '101', authorId, true));
    await countsBecome({ num_stories: 2, num_blog_posts: 0 });
    await send(storyTopic, '102', story('storyUpdated', '102', authorId, false));
    await send(storyTopic, '101', story('storyDeleted', '101', authorId, true));
    await countsBecome({ num_stories: 0, num_blog_posts: 0 });
  });

  it('counts user blog posts, not site posts, and a redelivered event once', async () => {
    const eventId = randomUUID();
    await send(blogTopic, '201', post('blogPostCreated', '201', authorId), eventId);
    await send(blogTopic, '201', post('blogPostCreated', '201', authorId), eventId);
    await send(blogTopic, '202', post('blogPostCreated', '202', authorId));
    await send(blogTopic, '203', post('blogPostCreated', '203', '0', true));
    await countsBecome({ num_stories: 0, num_blog_posts: 2 });
    await send(blogTopic, '202', post('blogPostDeleted', '202', authorId));
    await countsBecome({ num_stories: 0, num_blog_posts: 1 });
  });
});
