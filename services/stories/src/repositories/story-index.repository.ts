import { AppError, ErrorCode } from '@inkwell/errors';
import { errors, type Client } from '@opensearch-project/opensearch';
import type { IdPage, StoryListQuery } from '../domain/story-query.js';
import type { ContentRating, Story, StoryStatus } from '../domain/story.js';
import { oldestMappingVersion, storyIndexBody, type ListedDocument, type StoryIndexSettings } from '../search/story-index.mapping.js';
import type { IndexedStory } from './story-document.repository.js';
import { storySearchBody, storyTagCountsBody } from './story-index.query.js';

/** How long merging a rebuilt index may take before the rebuild goes on without it. */
const COMPACT_TIMEOUT_MS = 10 * 60_000;

/** A story that must leave the index, with the version its deletion is recorded at. */
export interface IndexDeletion {
  id: string;
  version: string;
}

interface BulkItemResult {
  status: number;
  error?: { type?: string; reason?: string };
}

/** A hit of a list search: its sort values, of which the last is always the story id, and the fields a list shows. */
interface SearchHit {
  sort: Array<number | string | null>;
  _source?: ListedDocument;
}

/** A story as its document holds it, published by definition; undefined when the document does not carry its texts. */
function listedStory(source: ListedDocument | undefined): Story | undefined {
  const listed = source?.listed;
  if (source === undefined || listed?.description === undefined || listed.description_html === undefined) return undefined;
  return {
    id: source.id,
    authorId: source.author_id,
    title: source.title,
    shortDescription: source.short_description,
    description: listed.description,
    descriptionHtml: listed.description_html,
    status: source.status as StoryStatus,
    contentRating: source.content_rating as ContentRating,
    published: true,
    numWords: source.num_words,
    numChapters: listed.num_chapters,
    numViews: source.num_views,
    numLikes: source.num_likes,
    numDislikes: source.num_dislikes,
    numComments: source.num_comments,
    rating: source.rating,
    hotness: source.hotness,
    datePublished: new Date(source.date_published),
    dateModified: new Date(source.date_modified),
    dateUpdated: source.date_updated === null ? null : new Date(source.date_updated),
    tagIds: source.tag_ids,
    chapterIds: listed.chapter_ids,
  };
}

/** A list search's answer as {@link PAGE_FILTER_PATH} leaves it: without hits, `hits.hits` (or all of `hits`) is absent. */
interface SearchResponseBody {
  hits?: { total?: { value: number; relation: 'eq' | 'gte' }; hits?: SearchHit[] };
}

interface TagCountsResponseBody {
  aggregations?: { tags?: { buckets: Array<{ key: string; doc_count: number }> } };
}

/**
 * What the service reads of a list search's answer (`filter_path`): the node leaves out the rest
 * (took, _shards, each hit's index and score), which is less to send and to parse per page.
 */
const PAGE_FILTER_PATH = ['hits.total', 'hits.hits.sort', 'hits.hits._source'];
/** The same for an `_msearch` of a page and its tag counts, with each search's status and error. */
const PAGE_AND_COUNTS_FILTER_PATH = [...PAGE_FILTER_PATH, 'aggregations.tags.buckets', 'status', 'error.type', 'error.reason'].map((path) => `responses.${path}`);

/** One answer of an `_msearch`: a search's body, or the error that search alone met. */
type MultiSearchItem = (SearchResponseBody & TagCountsResponseBody) | { status: number; error: { type?: string; reason?: string } };

/** How the index answers searches. */
export interface StorySearchOptions {
  /**
   * Whether tag counts may be answered from the node's shard request cache, which holds a count
   * until the index next changes (on by default; the stories benchmark turns it off so that it
   * measures counting, not the cache).
   */
  cacheTagCounts: boolean;
}

/**
 * Turns a failure of the OpenSearch client into an AppError: a missing index is search not built
 * yet ({@link notBuiltYet}); anything else but a refused request means the index is unavailable.
 */
function translateSearchError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof errors.ResponseError && isIndexNotFound(error.meta.statusCode, (error.meta.body as { error?: { type?: string } } | undefined)?.error?.type)) return notBuiltYet(error);
  if (error instanceof errors.ResponseError && error.meta.statusCode === 400) return refusedSearch(error);
  return new AppError(ErrorCode.UNAVAILABLE, 'Story search is unavailable.', { cause: error });
}

/** Whether OpenSearch answered that the index (the alias lists read) does not exist. */
function isIndexNotFound(status: number | null | undefined, type: string | undefined): boolean {
  return status === 404 && type === 'index_not_found_exception';
}

/**
 * No index under the alias lists read: the service builds it when it starts and finds none
 * (docs/api/stories.md, "Search", Rebuild), so until then search is UNAVAILABLE (503), a state
 * expected on a first start that ends by itself: logged at info without a stack (AppError.expected).
 */
function notBuiltYet(cause: unknown): AppError {
  return new AppError(ErrorCode.UNAVAILABLE, 'Story search is not ready yet: its index is being built.', { cause, expected: true });
}

function refusedSearch(cause: unknown): AppError {
  return new AppError(ErrorCode.INTERNAL, 'The search index refused a request.', { cause });
}

/** The body of one search of an `_msearch`, or the error it alone met, as {@link translateSearchError} would. */
function multiSearchBody(item: MultiSearchItem | undefined): SearchResponseBody & TagCountsResponseBody {
  if (item !== undefined && !('error' in item)) return item;
  const cause = new Error(`_msearch item: ${item?.status ?? 'missing'} ${item?.error.type ?? ''} ${item?.error.reason ?? ''}`);
  if (isIndexNotFound(item?.status, item?.error.type)) throw notBuiltYet(cause);
  if (item?.status === 400) throw refusedSearch(cause);
  throw new AppError(ErrorCode.UNAVAILABLE, 'Story search is unavailable.', { cause });
}

/**
 * The OpenSearch side of story search (docs/api/stories.md, "Search"): the alias `<prefix>stories`
 * that lists read, and while a rebuild runs the alias `<prefix>stories-building` of the index
 * being built; both point at concrete indices `<prefix>stories-<timestamp>`. Every write carries
 * the story row's version (external versioning): the index keeps the highest version it has
 * seen of each story, so an older write changes nothing.
 */
export class StoryIndexRepository {
  /** The alias lists read (and the consumer writes). */
  readonly alias: string;
  /** The alias of an index being built, which the consumer writes too. */
  readonly buildingAlias: string;

  constructor(
    private readonly client: Client,
    private readonly prefix: string,
    private readonly settings: StoryIndexSettings,
    private readonly searchOptions: StorySearchOptions = { cacheTagCounts: true },
  ) {
    this.alias = `${prefix}stories`;
    this.buildingAlias = `${prefix}stories-building`;
  }

  /**
   * One page of a published-story list: ids in order, the position after it, the total and (with
   * `facets`) tag counts. Tag counts are a second search sent with the page's in one `_msearch`:
   * it counts every match without scoring any, while the page's search ranks only what can reach
   * the page.
   */
  async search(query: StoryListQuery, facets: boolean): Promise<IdPage> {
    let page: SearchResponseBody;
    let counts: TagCountsResponseBody | undefined;
    try {
      if (facets) {
        const response = await this.client.msearch({
          body: [{ index: this.alias }, storySearchBody(query), { index: this.alias, request_cache: this.searchOptions.cacheTagCounts }, storyTagCountsBody(query)] as never,
          filter_path: PAGE_AND_COUNTS_FILTER_PATH,
        });
        const [pageItem, countsItem] = (response.body as unknown as { responses: MultiSearchItem[] }).responses;
        page = multiSearchBody(pageItem);
        counts = multiSearchBody(countsItem);
      } else {
        const response = await this.client.search({ index: this.alias, body: storySearchBody(query) as never, filter_path: PAGE_FILTER_PATH });
        page = response.body as unknown as SearchResponseBody;
      }
    } catch (error) {
      throw translateSearchError(error);
    }
    const hits = page.hits?.hits ?? [];
    const positions = hits.map(({ sort: [key, id] }) => ({ key: key === null || key === undefined ? null : String(key), id: String(id) }));
    const shown = positions.slice(0, query.limit);
    const result: IdPage = { ids: shown.map((position) => position.id), positions: shown, stories: hits.slice(0, query.limit).map((hit) => listedStory(hit._source)) };
    if (positions.length > query.limit) result.next = shown.at(-1)!;
    const total = page.hits?.total;
    if (total) result.total = { value: total.value, lowerBound: total.relation === 'gte' };
    if (counts) result.tagCounts = (counts.aggregations?.tags?.buckets ?? []).map((bucket) => ({ tagId: bucket.key, count: bucket.doc_count }));
    return result;
  }

  /**
   * Writes the current state of stories to the index lists read and, while a rebuild runs, to
   * the index being built, in one `_bulk`: published ones as documents, the others (drafts, and
   * `deletions`) as deletes. A write older than what an index holds is refused by it and is not
   * an error; neither is a delete of a story the index does not have. With no index at all
   * nothing is written: the rebuild that creates one reads Postgres after creating it. Fails
   * (UNAVAILABLE) when any write could not be made, so the caller tries again.
   */
  async write(stories: readonly IndexedStory[], deletions: readonly IndexDeletion[]): Promise<void> {
    // Writes go to aliases that exist only: a delete addressed to a missing name would create an
    // index of that name (require_alias guards index operations only).
    const targets = [...new Set([...(await this.aliasesOf([this.alias, this.buildingAlias])).values()].flat())];
    if (targets.length === 0 || (stories.length === 0 && deletions.length === 0)) return;
    const operations: Record<string, unknown>[] = [];
    const written: Array<{ target: string; id: string }> = [];
    for (const target of targets) {
      for (const story of stories) {
        const meta = { _index: target, _id: story.id, version: Number(story.version), version_type: 'external' };
        if (story.published) operations.push({ index: { ...meta, require_alias: true } }, story.document as unknown as Record<string, unknown>);
        else operations.push({ delete: meta });
        written.push({ target, id: story.id });
      }
      for (const gone of deletions) {
        operations.push({ delete: { _index: target, _id: gone.id, version: Number(gone.version), version_type: 'external' } });
        written.push({ target, id: gone.id });
      }
    }
    const failures: string[] = [];
    (await this.bulk(operations)).forEach((item, index) => {
      const { target, id } = written[index]!;
      if (item.status < 300 || item.status === 409 || (item.status === 404 && item.error === undefined)) return;
      // The rebuild finished between our look-up and the write: the read alias took the story.
      if (target === this.buildingAlias && item.error?.type === 'index_not_found_exception') return;
      failures.push(`${target}/${id}: ${item.status} ${item.error?.type ?? ''} ${item.error?.reason ?? ''}`);
    });
    if (failures.length > 0) throw new AppError(ErrorCode.UNAVAILABLE, `The search index refused writes: ${failures.slice(0, 3).join('; ')}`);
  }

  /** Bulk-loads stories into concrete index `index` (a rebuild); older than what it holds is not an error. */
  async load(index: string, stories: readonly IndexedStory[]): Promise<void> {
    const operations: Record<string, unknown>[] = [];
    for (const story of stories) {
      operations.push({ index: { _index: index, _id: story.id, version: Number(story.version), version_type: 'external' } }, story.document as unknown as Record<string, unknown>);
    }
    if (operations.length === 0) return;
    const failures = (await this.bulk(operations)).filter((item) => item.status >= 300 && item.status !== 409);
    if (failures.length > 0) {
      throw new AppError(ErrorCode.UNAVAILABLE, `The search index refused ${failures.length} documents, e.g. ${failures[0]!.error?.type ?? ''} ${failures[0]!.error?.reason ?? ''}`);
    }
  }

  /** The concrete indices the read alias points at; empty when it does not exist. */
  async readIndices(): Promise<string[]> {
    return this.aliasTargets(this.alias);
  }

  /**
   * The oldest mapping version among the indices lists read (1 for an index from before versions
   * were kept); undefined when there is none.
   */
  async readMappingVersion(): Promise<number | undefined> {
    const indices = await this.readIndices();
    if (indices.length === 0) return undefined;
    try {
      const { body } = await this.client.indices.getMapping({ index: indices.join(',') });
      return oldestMappingVersion(body);
    } catch (error) {
      throw translateSearchError(error);
    }
  }

  /**
   * Creates a new concrete index `<prefix>stories-<timestamp>` with the mapping and the building
   * alias, refresh off for the load. Any earlier building alias (a rebuild that died) is moved
   * to it, and the index it pointed at is dropped unless lists read it.
   */
  async createBuildingIndex(now: Date): Promise<string> {
    const index = `${this.prefix}stories-${now.getTime()}`;
    const stale = await this.aliasTargets(this.buildingAlias);
    const body = storyIndexBody(this.settings) as { settings: { index: Record<string, unknown> } };
    body.settings.index.refresh_interval = '-1';
    try {
      // A delete that raced the end of an earlier rebuild can leave a plain index under the
      // building alias's name, which would block the alias.
      if (stale.length === 0 && (await this.client.indices.exists({ index: this.buildingAlias })).body) await this.client.indices.delete({ index: this.buildingAlias });
      await this.client.indices.create({ index, body: body as never });
      await this.client.indices.updateAliases({
        body: { actions: [...stale.map((old) => ({ remove: { index: old, alias: this.buildingAlias } })), { add: { index, alias: this.buildingAlias } }] } as never,
      });
      const reading = new Set(await this.readIndices());
      for (const old of stale.filter((name) => !reading.has(name))) await this.client.indices.delete({ index: old });
    } catch (error) {
      throw translateSearchError(error);
    }
    return index;
  }

  /**
   * Merges `index` (a rebuild's, loaded) into one segment per shard, so that a search visits one
   * segment instead of the twenty or so a bulk load leaves (docs/api/stories.md, "Search",
   * Rebuild). At about 0.6 GB per million stories a shard's segment stays well under the 5 GB up to
   * which the engine's own merging keeps handling it as changes arrive.
   */
  async compact(index: string): Promise<void> {
    try {
      await this.client.indices.forcemerge({ index, max_num_segments: 1 }, { requestTimeout: COMPACT_TIMEOUT_MS, maxRetries: 0 });
    } catch (error) {
      throw translateSearchError(error);
    }
  }

  /**
   * Finishes a rebuild of `index`: the configured refresh interval, a refresh, then in one atomic
   * alias change the read alias moves to it and the building alias goes; the indices lists read
   * before are dropped. Returns them.
   */
  async publish(index: string): Promise<string[]> {
    try {
      await this.client.indices.putSettings({ index, body: { index: { refresh_interval: this.settings.refreshInterval } } as never });
      await this.client.indices.refresh({ index });
      const previous = (await this.readIndices()).filter((name) => name !== index);
      await this.client.indices.updateAliases({
        body: {
          actions: [
            ...previous.map((old) => ({ remove: { index: old, alias: this.alias } })),
            { add: { index, alias: this.alias } },
            { remove: { index, alias: this.buildingAlias } },
          ],
        } as never,
      });
      for (const old of previous) await this.client.indices.delete({ index: old });
      return previous;
    } catch (error) {
      throw translateSearchError(error);
    }
  }

  /** Makes every write so far searchable now (tests and the end of a rebuild; lists never wait for it). */
  async refresh(): Promise<void> {
    try {
      await this.client.indices.refresh({ index: this.alias });
    } catch (error) {
      throw translateSearchError(error);
    }
  }

  /** The concrete indices the read alias points at; empty when it does not exist. */
  private async aliasTargets(alias: string): Promise<string[]> {
    const found = await this.aliasesOf([alias]);
    return [...found.entries()].filter(([, aliases]) => aliases.includes(alias)).map(([index]) => index);
  }

  /** Concrete index → which of `aliases` point at it (missing aliases are simply absent). */
  private async aliasesOf(aliases: readonly string[]): Promise<Map<string, string[]>> {
    try {
      const response = await this.client.indices.getAlias({ name: aliases.join(',') }, { ignore: [404] });
      const body = response.body as unknown as Record<string, unknown>;
      const result = new Map<string, string[]>();
      for (const [index, value] of Object.entries(body)) {
        if (typeof value !== 'object' || value === null || !('aliases' in value)) continue;
        result.set(index, Object.keys((value as { aliases: Record<string, unknown> }).aliases).filter((name) => aliases.includes(name)));
      }
      return result;
    } catch (error) {
      throw translateSearchError(error);
    }
  }

  private async bulk(operations: Record<string, unknown>[]): Promise<BulkItemResult[]> {
    try {
      const response = await this.client.bulk({ body: operations });
      const body = response.body as unknown as { items: Array<Record<string, BulkItemResult>> };
      return body.items.map((item) => Object.values(item)[0]!);
    } catch (error) {
      throw translateSearchError(error);
    }
  }
}
