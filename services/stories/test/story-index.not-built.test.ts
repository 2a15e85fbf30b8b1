import { ErrorCode } from '@inkwell/errors';
import { stackEnv } from '@inkwell/testing';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_STORY_SORT } from '../src/domain/list.js';
import { StoryIndexRepository } from '../src/repositories/story-index.repository.js';

/**
 * Search before the service has built its index (a first start: docs/api/stories.md, "Search",
 * Rebuild), against the stack's real OpenSearch with an index prefix nobody builds.
 */
describe('story search before its index exists', () => {
  const opensearch = new OpenSearchClient({ node: stackEnv().opensearchUrl });
  const index = new StoryIndexRepository(opensearch, `t-not-built-${Date.now().toString(36)}.`, { shards: 1, replicas: 0, refreshInterval: '500ms' });

  afterAll(async () => {
    await opensearch.close();
  });

  it('is UNAVAILABLE marked expected (logged at info, no stack), with and without tag counts', async () => {
    for (const facets of [false, true]) {
      const failure = await index.search({ publication: 'published', sort: DEFAULT_STORY_SORT, limit: 20 }, facets).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, `facets ${facets}`).toMatchObject({ code: ErrorCode.UNAVAILABLE, expected: true, message: 'Story search is not ready yet: its index is being built.' });
    }
  });
});
