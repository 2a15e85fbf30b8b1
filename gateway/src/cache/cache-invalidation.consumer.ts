import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { decodeEnvelope, ensureTopics, namespaced, storyStateOf } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import type { Consumer, Kafka } from 'kafkajs';
import type { CacheKey, PublicResourceCache } from './public-resource.cache.js';

/** The topics whose events change what the public cache holds. */
export const INVALIDATION_TOPICS = [Topics.storiesStory, Topics.storiesChapter, Topics.usersUser, Topics.usersFollow, Topics.usersModeration, Topics.blogPost] as const;

/**
 * How long after an event that another service's consumer turns into a count (a user's
 * `num_stories`, `num_blog_posts`) its entry is dropped once more: the count is written after the
 * event, so a read between the two may have cached the old count (docs/api/foundation.md).
 */
export const DERIVED_COUNT_REINVALIDATE_MS = 1_000;

/**
 * What one event makes stale: `now` at once, `later` again after {@link DERIVED_COUNT_REINVALIDATE_MS}
 * (counts that the users service derives from it). Pure, for the tests.
 */
export function staleKeys(envelope: EventEnvelope): { now: CacheKey[]; later: CacheKey[] } {
  const story = storyStateOf(envelope);
  if (story !== undefined) return { now: [`story:${story.storyId}`, `user:${story.authorId}`], later: [`user:${story.authorId}`] };
  const payload = envelope.payload;
  switch (payload.case) {
    case 'storyStatsChanged':
      return { now: [`story:${payload.value.storyId}`], later: [] };
    case 'chapterCreated':
    case 'chapterUpdated':
    case 'chapterDeleted':
      return { now: payload.value.chapter === undefined ? [] : [`story:${payload.value.chapter.storyId}`], later: [] };
    case 'userCreated':
    case 'userUpdated':
    case 'userSuspended':
      return { now: [`user:${payload.value.userId}`], later: [] };
    case 'userFollowed':
    case 'userUnfollowed':
      return { now: [`user:${payload.value.followerId}`, `user:${payload.value.followedId}`], later: [] };
    case 'blogPostCreated':
    case 'blogPostUpdated':
    case 'blogPostDeleted': {
      const author = payload.value.blogPost?.authorId;
      return author === undefined || author === '0' ? { now: [], later: [] } : { now: [`user:${author}`], later: [`user:${author}`] };
    }
    default:
      // Views, votes and comments reach stories through StoryStatsChanged, written once applied;
      // a story snapshot without a story id names nothing to drop.
      return { now: [], later: [] };
  }
}

/**
 * Whether an event takes something out of what the public may see (docs/api/updates.md, "Atom
 * feeds"): a story or chapter unpublished (hidden by an operator included) or deleted, a blog
 * post deleted or hidden, an account suspended. Rendered public feeds are dropped on such an
 * event rather than kept for the rest of their short life. Pure, for the tests.
 */
export function withdrawsPublicContent(envelope: EventEnvelope): boolean {
  const payload = envelope.payload;
  switch (payload.case) {
    case 'storyUpdated':
      return payload.value.previousPublished && payload.value.story?.published === false;
    case 'chapterUpdated':
      return payload.value.previousPublished && payload.value.chapter?.published === false;
    case 'storyDeleted':
    case 'chapterDeleted':
    case 'blogPostDeleted':
    case 'userSuspended':
      return true;
    default:
      return false;
  }
}

/**
 * Keeps this gateway process's public cache honest: a Kafka consumer in a consumer group of its
 * own (every process must see every event; the group starts at the newest records) that drops
 * the entries each event makes stale. The cache serves only between this consumer's first fetch
 * (its offsets are resolved: nothing after that is missed) and a crash, rebalance or stop, which
 * empty it and send reads to the backends until it fetches again (docs/api/foundation.md,
 * "Caching at the edge").
 */
export class CacheInvalidationConsumer {
  private readonly consumer: Consumer;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Set by stop(): the consumer's stop and disconnect are then this process closing, not a fault. */
  private stopping = false;

  /**
   * `onWithdrawn` runs on every event that {@link withdrawsPublicContent} (the gateway empties its
   * rendered public feeds).
   */
  constructor(
    private readonly kafka: Kafka,
    private readonly cache: PublicResourceCache,
    private readonly logger: Logger,
    private readonly onWithdrawn: () => void = () => {},
  ) {
    const groupId = namespaced(kafka, `gateway-cache-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`);
    // A fetch returns as soon as records exist; the wait only bounds idle polls.
    this.consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 500, sessionTimeout: 10_000, heartbeatInterval: 1_000 });
    const offline = (reason: string) => () => {
      if (this.cache.isLive) {
        // A warning only for what was not asked for (a crash, a rebalance, a lost broker): closing is expected.
        if (this.stopping) this.logger.info({ reason }, 'public cache off: the gateway is stopping');
        else this.logger.warn({ reason }, 'public cache off until the invalidation consumer fetches again');
      }
      this.cache.setLive(false);
    };
    this.consumer.on(this.consumer.events.CRASH, offline('crash'));
    this.consumer.on(this.consumer.events.REBALANCING, offline('rebalancing'));
    this.consumer.on(this.consumer.events.STOP, offline('stop'));
    this.consumer.on(this.consumer.events.DISCONNECT, offline('disconnect'));
    this.consumer.on(this.consumer.events.FETCH, () => {
      if (!this.cache.isLive) this.cache.setLive(true);
    });
  }

  /** Creates missing topics, subscribes and starts consuming; the cache goes live on the first fetch. */
  async start(): Promise<void> {
    await ensureTopics(this.kafka, INVALIDATION_TOPICS);
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: INVALIDATION_TOPICS.map((topic) => namespaced(this.kafka, topic)), fromBeginning: false });
    await this.consumer.run({
      eachMessage: async ({ message }) => {
        const envelope = decodeEnvelope(message.value);
        if (!envelope) return;
        const { now, later } = staleKeys(envelope);
        for (const key of now) this.cache.invalidate(key);
        if (withdrawsPublicContent(envelope)) this.onWithdrawn();
        if (later.length > 0) {
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            for (const key of later) this.cache.invalidate(key);
          }, DERIVED_COUNT_REINVALIDATE_MS);
          this.timers.add(timer);
        }
      },
    });
  }

  /** Stops consuming (the cache goes off) and leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.consumer.disconnect();
  }
}
