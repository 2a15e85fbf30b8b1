import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { oldestMappingVersion, STORY_INDEX_MAPPING_VERSION, storySearchBody, storyTagCountsBody, type StoryListQuery } from '@inkwell/stories';
import { quantile, repoRoot, stackEnv } from '@inkwell/testing';

const run = promisify(execFile);

/**
 * The search index prefix of a benchmark database: fixed per database, so the story index built
 * once (by a suite's prepare, `npm run search:rebuild` with this prefix, or the stories service's
 * first start) is reused by every later run instead of being rebuilt from a million rows each time.
 */
export function searchIndexPrefix(database: string): string {
  return `${database.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}.`;
}

/** The alias lists read for the benchmark database at `databaseUrl` (docs/api/stories.md, "Search"). */
export function storyIndexAlias(databaseUrl: string): string {
  return `${searchIndexPrefix(databaseNameOf(databaseUrl))}stories`;
}

function databaseNameOf(databaseUrl: string): string {
  return new URL(databaseUrl).pathname.slice(1);
}

/** Sends `body` to the OpenSearch API at `path` (GET without a body; an array as NDJSON lines); throws on any answer but 2xx. */
async function openSearch<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stackEnv().opensearchUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': Array.isArray(body) ? 'application/x-ndjson' : 'application/json' },
    ...(body === undefined ? {} : { body: Array.isArray(body) ? body.map((line) => `${JSON.stringify(line)}\n`).join('') : JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`OpenSearch ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return (await response.json()) as T;
}

/**
 * How many stories the story index of the benchmark database holds; undefined when it has none,
 * or only one of an older mapping version (which the stories service would rebuild at start).
 */
export async function indexedStories(databaseUrl: string): Promise<number | undefined> {
  const alias = storyIndexAlias(databaseUrl);
  const mapping = await fetch(`${stackEnv().opensearchUrl}/${alias}/_mapping`);
  if (mapping.status === 404) return undefined;
  if (!mapping.ok) throw new Error(`reading the story index's mapping: ${mapping.status} ${(await mapping.text()).slice(0, 300)}`);
  if ((oldestMappingVersion(await mapping.json()) ?? 0) < STORY_INDEX_MAPPING_VERSION) return undefined;
  const { count } = await openSearch<{ count: number }>(`/${alias}/_count`);
  return count;
}

/** What a rebuild of the story index did. */
export interface Rebuild {
  readonly seconds: number;
  /** What the command printed: how many stories went into which index. */
  readonly summary: string;
}

/**
 * Rebuilds the story index of the benchmark database from Postgres with the stories service's own
 * command (`npm run search:rebuild`: a new index, loaded, then swapped in for the old one), at
 * the priority of this process; its wall time includes the command's start. Stopped when `signal` aborts.
 */
export async function rebuildStoryIndex(databaseUrl: string, signal?: AbortSignal): Promise<Rebuild> {
  const root = repoRoot();
  const started = performance.now();
  const { stdout } = await run(process.execPath, ['--conditions=@inkwell/source', '--import', 'tsx', join(root, 'services/stories/src/cli/search-rebuild.ts')], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, OPENSEARCH_URL: stackEnv().opensearchUrl, OPENSEARCH_INDEX_PREFIX: searchIndexPrefix(databaseNameOf(databaseUrl)), LOG_LEVEL: 'warn' },
    // Stopped (SIGTERM) with the benchmark; the index it was building is dropped by the next rebuild.
    ...(signal === undefined ? {} : { signal }),
  });
  return { seconds: (performance.now() - started) / 1000, summary: stdout.trim() };
}

/** A list request as the stories service hands it to the index (published stories, pages of 20). */
export type StorySearch = Omit<StoryListQuery, 'publication' | 'limit'> & { facets?: boolean };

/** `search` as the complete query of one page, as the stories service builds it. */
function pageQuery(search: StorySearch): StoryListQuery {
  const { facets: _facets, ...rest } = search;
  return { publication: 'published', limit: 20, ...rest };
}

interface SearchAnswer {
  took: number;
  hits: { hits: Array<{ sort?: Array<number | string | null> }> };
}

/**
 * The position (sort value and id) after the story at `offset` of the list `search` (for the
 * `after` of a page reached by cursors), read straight from the index.
 */
export async function positionAt(databaseUrl: string, search: StorySearch, offset: number): Promise<{ key: string | null; id: string }> {
  const body = { ...storySearchBody(pageQuery(search)), from: offset, size: 1, track_total_hits: false };
  const answer = await openSearch<SearchAnswer>(`/${storyIndexAlias(databaseUrl)}/_search`, body);
  const sort = answer.hits.hits[0]?.sort ?? fail(`the list has no story at offset ${offset}`);
  return { key: sort[0] === null || sort[0] === undefined ? null : String(sort[0]), id: String(sort[1]) };
}

/**
 * The engine's own time for a row: each of `searches` (the row's requests as the stories service
 * sends them: one `_search`, or with facets the page's and the tag counts' in one `_msearch`, no
 * request cache) is sent straight to the index `rounds` times, one at a time, and the `took` the
 * engine reports is summarised (median and the largest), for the row's "engine time" column.
 */
export function engineTime(databaseUrl: string, searches: readonly StorySearch[], rounds = 3): () => Promise<string> {
  return async () => {
    const took: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const search of searches) {
        const query = pageQuery(search);
        const answer = search.facets
          ? await openSearch<{ took: number }>(`/${storyIndexAlias(databaseUrl)}/_msearch`, [{}, storySearchBody(query), { request_cache: false }, storyTagCountsBody(query)])
          : await openSearch<SearchAnswer>(`/${storyIndexAlias(databaseUrl)}/_search`, storySearchBody(query));
        took.push(answer.took);
      }
    }
    took.sort((a, b) => a - b);
    return `OpenSearch took ${quantile(took, 0.5)} ms (median; max ${took.at(-1)} of ${took.length})`;
  };
}

function fail(message: string): never {
  throw new Error(message);
}
