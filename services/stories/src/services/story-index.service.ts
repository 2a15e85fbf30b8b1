import type { Logger } from '@inkwell/logging';
import type { StoryDocumentRepository } from '../repositories/story-document.repository.js';
import type { StoryIndexRepository } from '../repositories/story-index.repository.js';
import { STORY_INDEX_MAPPING_VERSION } from '../search/story-index.mapping.js';

/** Stories per `_bulk` of a rebuild, and how many such requests are in flight at once. */
export const REBUILD_BATCH = { size: 5_000, inFlight: 2 } as const;

/** What a rebuild did. */
export interface RebuildResult {
  index: string;
  stories: number;
  /** The indices lists read before, now dropped. */
  replaced: string[];
}

/**
 * Keeps the search index of published stories equal to Postgres (docs/api/stories.md, "Search"):
 * per story, by reading its current row and writing it with the row's version; in bulk, by
 * rebuilding the whole index beside the one lists read and swapping them.
 */
export class StoryIndexService {
  constructor(
    private readonly documents: StoryDocumentRepository,
    private readonly index: StoryIndexRepository,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Brings the index up to date for stories `ids` (duplicates fine): each is read from Postgres
   * now and written at its current version, published ones as documents, drafts and deleted
   * stories as deletes. Whatever happened before, the index ends up holding the newest state it
   * was given for each story. Throws when the index could not take it (the caller retries).
   * With `searchableNow` the index is refreshed before it returns (an operator's decision must
   * not wait for the refresh interval); otherwise lists see the change within that interval.
   */
  async syncStories(ids: readonly string[], { searchableNow = false }: { searchableNow?: boolean } = {}): Promise<void> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return;
    const found = await this.documents.findByIds(unique);
    const existing = new Set(found.map((story) => story.id));
    const gone = unique.filter((id) => !existing.has(id));
    const version = gone.length > 0 ? await this.documents.versionAboveAll() : '';
    await this.index.write(
      found,
      gone.map((id) => ({ id, version })),
    );
    if (searchableNow) await this.index.refresh();
  }

  /**
   * Builds a new index from every published story in Postgres while the consumer keeps writing
   * changes to it too (through the building alias), then makes lists read it and drops the old
   * one. One rebuild runs at a time (others wait for it).
   */
  async rebuild(): Promise<RebuildResult> {
    return this.documents.exclusively('story-index-rebuild', () => this.rebuildLocked());
  }

  /**
   * Builds the index when lists have none to read (first start) or theirs has an older mapping
   * version (the first start after an upgrade that changed the fields); returns whether it did.
   */
  async ensureIndex(): Promise<boolean> {
    const isCurrent = (version: number | undefined) => version !== undefined && version >= STORY_INDEX_MAPPING_VERSION;
    if (isCurrent(await this.index.readMappingVersion())) return false;
    return this.documents.exclusively('story-index-rebuild', async () => {
      // Another process may have built it while this one waited for the lock.
      const version = await this.index.readMappingVersion();
      if (isCurrent(version)) return false;
      if (version !== undefined) this.logger.warn({ version, wanted: STORY_INDEX_MAPPING_VERSION }, 'the story search index has an older mapping: rebuilding it');
      await this.rebuildLocked();
      return true;
    });
  }

  private async rebuildLocked(): Promise<RebuildResult> {
    const started = Date.now();
    const index = await this.index.createBuildingIndex(this.clock());
    this.logger.info({ index }, 'search index rebuild started');
    let stories = 0;
    let afterId = '0';
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    for (;;) {
      if (failure !== undefined) throw failure;
      const batch = await this.documents.publishedAfter(afterId, REBUILD_BATCH.size);
      if (batch.length === 0) break;
      afterId = batch.at(-1)!.id;
      stories += batch.length;
      const load: Promise<void> = this.index
        .load(index, batch)
        .catch((error: unknown) => {
          failure ??= error;
        })
        .finally(() => inFlight.delete(load));
      inFlight.add(load);
      if (inFlight.size >= REBUILD_BATCH.inFlight) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure !== undefined) throw failure;
    try {
      await this.index.compact(index);
    } catch (error) {
      // Only slower searches until the engine's own merging catches up: not worth failing for.
      this.logger.warn({ err: error, index }, 'merging the rebuilt search index failed; publishing it as it is');
    }
    const replaced = await this.index.publish(index);
    this.logger.info({ index, stories, replaced, seconds: (Date.now() - started) / 1000 }, 'search index rebuilt');
    return { index, stories, replaced };
  }
}
