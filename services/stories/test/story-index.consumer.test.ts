import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventConsumer } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { RatingValue, SortDirection, StorySortField } from '@inkwell/proto/stories';
import { Topics } from '@inkwell/proto/topics';
import { createTestTopics, eventually, stackEnv, type TestTopics } from '@inkwell/testing';
import { createStoryIndexConsumer } from '../src/consumers/story-index.consumer.js';
import { createStoryStatsConsumer } from '../src/consumers/story-stats.consumer.js';
import { StoryDocumentRepository } from '../src/repositories/story-document.repository.js';
import { StoryRepository } from '../src/repositories/story.repository.js';
import { STORY_INDEX_MAPPING_VERSION } from '../src/search/story-index.mapping.js';
import { StoryStatsService } from '../src/services/story-stats.service.js';
import { makeStory } from './factories.js';
import { author, caller, startStories, type StoriesHarness } from './harness.js';

const logger = createLogger('stories-index-test');
const reader = () => caller({ appId: 'index-test-app' });
const writer = author('401');

/**
 * The search index fed by the story events (docs/api/stories.md, "Search"): the outbox rows of
 * stories.story.v1 are forwarded to a throwaway topic (standing in for the relay), read by the
 * stats consumer and the index consumer, as in the service.
 */
describe('the search index follows the story events', () => {
  let h: StoriesHarness;
  let kafka: TestTopics;
  let topic: string;
  let stats: EventConsumer;
  let index: EventConsumer;
  let forwarded = 0;

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_index');
    kafka = await createTestTopics('stories-index', ['story']);
    topic = kafka.topics[0]!;
    stats = createStoryStatsConsumer({ kafka: kafka.kafka, pool: h.pool, stats: new StoryStatsService(new StoryRepository(h.pool)), logger, topics: [topic], groupId: `${kafka.groupId}-stats` });
    index = createStoryIndexConsumer({ kafka: kafka.kafka, index: h.search.service, logger, topics: [topic], groupId: `${kafka.groupId}-index` });
    await Promise.all([stats.start(), index.start()]);
  });

  afterAll(async () => {
    await index?.stop();
    await stats?.stop();
    await kafka?.close();
    await h?.close();
  });

  /** Sends the stories.story.v1 outbox rows written since the last call, in order (what the relay does). */
  async function forward(): Promise<Buffer[]> {
    const { rows } = await h.pool.query<{ id: string; key: string; payload: Buffer }>('SELECT id::text, key, payload FROM outbox WHERE topic = $1 AND id > $2 ORDER BY id', [Topics.storiesStory, forwarded]);
    if (rows.length === 0) return [];
    await kafka.send(topic, rows.map((row) => ({ key: row.key, value: row.payload })));
    forwarded = Number(rows.at(-1)!.id);
    return rows.map((row) => row.payload);
  }

  /** Forwards events and polls `check` until it holds (at most 15 s). */
  async function until(check: () => Promise<boolean>): Promise<void> {
    await eventually(
      async () => {
        await forward();
        return check();
      },
      { timeoutMs: 15_000, what: 'the search index to converge' },
    );
  }

  const listed = async (query: string) => (await h.client.listStories({ query, pageSize: 100 }, reader())).stories.map((story) => story.id);

  async function publishedStory(title: string): Promise<string> {
    const id = (await h.client.createStory({ title }, writer)).story!.id;
    await h.client.createChapter({ storyId: id, title: 'One', content: 'Some words here.', published: true }, writer);
    await h.client.updateStory({ id, published: true }, writer);
    return id;
  }

  it('lists a published story, and leaves out one unpublished or deleted, within the convergence bound', async () => {
    const kept = await publishedStory('Quince orchard');
    const unpublished = await publishedStory('Quince garden');
    const deleted = await publishedStory('Quince tree');
    await until(async () => (await listed('quince')).length === 3);
    await h.client.updateStory({ id: unpublished, published: false }, writer);
    await h.client.deleteStory({ id: deleted }, writer);
    await until(async () => JSON.stringify(await listed('quince')) === JSON.stringify([kept]));
  });

  it('sorts by a new like count once its event is applied', async () => {
    const plain = await publishedStory('Medlar one');
    const liked = await publishedStory('Medlar two');
    const byLikes = async () =>
      (await h.client.listStories({ query: 'medlar', sort: { field: StorySortField.NUM_LIKES, direction: SortDirection.DESCENDING } }, reader())).stories.map((story) => [story.id, story.numLikes]);
    await until(async () => (await byLikes()).length === 2);
    // Equal likes: ties by id, descending.
    expect(await byLikes()).toEqual([[liked, 0], [plain, 0]]);
    await h.client.setStoryRating({ storyId: plain, value: RatingValue.LIKE }, caller({ userId: '402' }, ['write_ratings']));
    await until(async () => JSON.stringify(await byLikes()) === JSON.stringify([[plain, 1], [liked, 0]]));
  });

  it('changes nothing on duplicate and stale events, or on a write of an older read', async () => {
    const id = await publishedStory('Loquat first title');
    await until(async () => (await listed('loquat')).length === 1);
    const old = await new StoryDocumentRepository(h.pool).findByIds([id]);
    await h.client.updateStory({ id, title: 'Persimmon second title' }, writer);
    await until(async () => (await listed('persimmon')).length === 1 && (await listed('loquat')).length === 0);

    // Every event of the story again, the oldest first, then a marker story: once the marker is
    // listed, the replay before it (same partition) has been applied.
    const { rows } = await h.pool.query<{ key: string; payload: Buffer }>('SELECT key, payload FROM outbox WHERE topic = $1 AND key = $2 ORDER BY id', [Topics.storiesStory, id]);
    expect(rows.length).toBeGreaterThan(2);
    await kafka.send(topic, rows.map((row) => ({ key: row.key, value: row.payload })));
    const marker = await publishedStory('Marker sapodilla');
    await until(async () => (await listed('sapodilla')).includes(marker));
    expect(await listed('persimmon')).toEqual([id]);
    expect(await listed('loquat')).toEqual([]);

    // A writer holding an older read of the row (another replica, a slow batch) loses.
    await h.search.index.write(old, []);
    await h.search.index.refresh();
    expect(await listed('loquat')).toEqual([]);
    expect(await listed('persimmon')).toEqual([id]);
  });
});

describe('rebuilding the search index while stories change', () => {
  let h: StoriesHarness;

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_index_rebuild');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('ends equal to a recount from Postgres', async () => {
    const ids: string[] = [];
    // Enough stories that a rebuild outlasts 20 changes even on an idle machine (150 did not always; 1,000 gave 38-44).
    for (let i = 0; i < 1000; i++) ids.push((await makeStory(h.pool, { title: `Tamarind ${i}`, numLikes: i % 7 })).id);
    await h.rebuildIndex();
    // Changes keep coming (each written to the index as the consumer would) while a rebuild runs.
    let writing = true;
    let changes = 0;
    const writer = (async () => {
      for (let i = 0; writing || i < 20; i++) {
        const id = ids[(i * 37) % ids.length]!;
        const change = i % 3;
        if (change === 0) await h.pool.query('UPDATE stories SET num_likes = num_likes + 5 WHERE id = $1', [id]);
        else if (change === 1) await h.pool.query('UPDATE stories SET published = NOT published WHERE id = $1', [id]);
        else await h.pool.query('DELETE FROM stories WHERE id = $1 AND id % 11 = 0', [id]);
        await h.search.service.syncStories([id]);
        changes += 1;
      }
    })();
    try {
      await h.rebuildIndex();
    } finally {
      writing = false;
      await writer;
    }
    expect(changes).toBeGreaterThan(20);
    await h.search.index.refresh();

    const walked: Array<[string, number]> = [];
    let after = '';
    do {
      const page = await h.client.listStories({ query: 'tamarind', sort: { field: StorySortField.NUM_LIKES, direction: SortDirection.DESCENDING }, pageSize: 100, after }, reader());
      walked.push(...page.stories.map((story): [string, number] => [story.id, story.numLikes]));
      after = page.nextAfter;
    } while (after !== '');
    const { rows } = await h.pool.query<{ id: string; num_likes: number }>(
      "SELECT id::text, num_likes FROM stories WHERE published AND title LIKE 'Tamarind %' ORDER BY num_likes DESC, stories.id DESC",
    );
    expect(walked).toEqual(rows.map((row) => [row.id, row.num_likes]));
    expect((await h.client.listStories({ query: 'tamarind', pageSize: 1 }, reader())).total).toBe(rows.length);
  }, 120_000);

  it('is rebuilt at start when lists read an index of an older mapping, and left alone when current', async () => {
    const story = (await makeStory(h.pool, { title: 'Quince upgrade' })).id;
    const [before] = await h.search.index.readIndices();
    // An index as an earlier version of the mapping left it.
    await fetch(`${stackEnv().opensearchUrl}/${before}/_mapping`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ _meta: { mapping_version: 1 } }) });
    expect(await h.search.service.ensureIndex()).toBe(true);
    const [after] = await h.search.index.readIndices();
    expect(after).not.toBe(before);
    expect(await h.search.index.readMappingVersion()).toBe(STORY_INDEX_MAPPING_VERSION);
    expect((await h.client.listStories({ query: 'quince' }, reader())).stories.map((found) => found.id)).toEqual([story]);
    expect(await h.search.service.ensureIndex()).toBe(false);
    expect(await h.search.index.readIndices()).toEqual([after]);
  });

  it('merges an index into one segment, keeping every story searchable', async () => {
    const [index] = await h.search.index.readIndices();
    const segments = async () => {
      const response = await fetch(`${stackEnv().opensearchUrl}/${index}/_segments`);
      const body = (await response.json()) as { indices: Record<string, { shards: Record<string, Array<{ segments: Record<string, unknown> }>> }> };
      return Object.values(body.indices[index!]!.shards).flat().reduce((sum, copy) => sum + Object.keys(copy.segments).length, 0);
    };
    // Each write made searchable on its own leaves a segment of its own.
    const written: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await makeStory(h.pool, { title: `Medlar ${i}` })).id;
      await h.search.service.syncStories([id]);
      await h.search.index.refresh();
      written.push(id);
    }
    expect(await segments()).toBeGreaterThan(1);
    await h.search.index.compact(index!);
    await h.search.index.refresh();
    expect(await segments()).toBe(1);
    expect((await h.client.listStories({ query: 'medlar' }, reader())).stories.map((story) => story.id).sort()).toEqual(written.sort());
  });
});
