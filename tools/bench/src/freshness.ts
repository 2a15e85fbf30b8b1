import { randomInt } from 'node:crypto';
import { quantile } from '@inkwell/testing';

/** One story whose title the measurement changes, and a token of its author (`write_stories`). */
export interface ChangeTarget {
  readonly storyId: string;
  readonly token: string;
}

/** How to measure how soon a change through the API shows in story search. */
export interface FreshnessOptions {
  /** The API base URL, e.g. http://127.0.0.1:8080/api/v1. */
  readonly apiUrl: string;
  /** One title change per target, in this order. */
  readonly targets: readonly ChangeTarget[];
  /** Changes started per second (open loop: on schedule, whether earlier ones were answered or not). */
  readonly changesPerSecond: number;
  /** The token the searches are made with (any reader). */
  readonly readerToken: string;
  /** A change not found by then counts as missed. */
  readonly timeoutMs: number;
}

/** What the measurement saw: the delays from each write's answer to the first search that found it. */
export interface FreshnessResult {
  readonly changes: number;
  /** Changes never found within the timeout (not in the quantiles). */
  readonly missed: number;
  /** Writes answered with anything but 200 (not in the quantiles). */
  readonly failedWrites: number;
  /** Searches answered with anything but 200 (their words are searched again). */
  readonly failedSearches: number;
  readonly firstError?: string;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** How long the writes took to be answered (a slow write path shows here, not in the delays). */
  readonly writeP50Ms: number;
  readonly writeP95Ms: number;
  /** Searches sent, and the median time of one (the resolution of the delays). */
  readonly searches: number;
  readonly searchP50Ms: number;
  /** Changes started per second as achieved. */
  readonly changesPerSecond: number;
}

/** The longest `query` the API takes (docs/api/stories.md, "GET /stories"). */
const MAX_QUERY_LENGTH = 200;

/**
 * A word no generated story has: `zq` and eight random letters (letters only, so that the
 * English analysis keeps it one token).
 */
export function uniqueWord(): string {
  let word = 'zq';
  for (let i = 0; i < 8; i++) word += String.fromCharCode(97 + randomInt(26));
  return word;
}

/** `words` as few `a or b or c` queries as fit in `maxLength` characters each (docs/api/stories.md, "Search"). */
export function orQueries(words: readonly string[], maxLength = MAX_QUERY_LENGTH): string[] {
  const queries: string[] = [];
  let current = '';
  for (const word of words) {
    if (word.length > maxLength) throw new RangeError(`a word of ${word.length} characters does not fit a query of ${maxLength}`);
    const joined = current === '' ? word : `${current} or ${word}`;
    if (joined.length <= maxLength) {
      current = joined;
      continue;
    }
    queries.push(current);
    current = word;
  }
  if (current !== '') queries.push(current);
  return queries;
}

interface Pending {
  readonly storyId: string;
  readonly word: string;
  readonly answeredAt: number;
}

/**
 * Event-to-searchable under a write load (docs/api/stories.md, "Search": how current it is):
 * changes the title of each target to a unique word through the API at `changesPerSecond`, and
 * meanwhile searches, round after round, for every word whose write was answered and that no
 * search has found yet (`a or b or …`, as few queries as fit). A change's delay is from its
 * write's answer to the answer of the first search that lists the story.
 */
export async function measureFreshness(options: FreshnessOptions): Promise<FreshnessResult> {
  const pending = new Map<string, Pending>();
  const delays: number[] = [];
  const searchTimes: number[] = [];
  const writeTimes: number[] = [];
  let missed = 0;
  let failedWrites = 0;
  let failedSearches = 0;
  let firstError: string | undefined;
  let writing = true;
  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' });

  const change = async (target: ChangeTarget): Promise<void> => {
    const word = uniqueWord();
    const body = JSON.stringify({ data: { type: 'story', id: target.storyId, attributes: { title: word } } });
    const started = performance.now();
    try {
      const response = await fetch(`${options.apiUrl}/stories/${target.storyId}`, { method: 'PATCH', headers: headers(target.token), body });
      if (response.status !== 200) throw new Error(`${response.status} ${(await response.text()).slice(0, 300)}`);
      await response.arrayBuffer();
      const answeredAt = performance.now();
      writeTimes.push(answeredAt - started);
      pending.set(word, { storyId: target.storyId, word, answeredAt });
    } catch (error) {
      failedWrites++;
      firstError ??= `PATCH /stories/${target.storyId}: ${String(error)}`;
    }
  };

  const search = async (query: string): Promise<void> => {
    const started = performance.now();
    const url = `${options.apiUrl}/stories?query=${encodeURIComponent(query)}&page[size]=100`;
    let found: Set<string>;
    try {
      const response = await fetch(url, { headers: headers(options.readerToken) });
      if (response.status !== 200) throw new Error(`${response.status} ${(await response.text()).slice(0, 300)}`);
      found = new Set(((await response.json()) as { data: Array<{ id: string }> }).data.map((story) => story.id));
    } catch (error) {
      failedSearches++;
      firstError ??= `GET ${url}: ${String(error)}`;
      return;
    }
    const answered = performance.now();
    searchTimes.push(answered - started);
    for (const word of query.split(' or ')) {
      const entry = pending.get(word);
      if (entry === undefined || !found.has(entry.storyId)) continue;
      delays.push(answered - entry.answeredAt);
      pending.delete(word);
    }
  };

  const poll = async (): Promise<void> => {
    while (writing || pending.size > 0) {
      const now = performance.now();
      for (const entry of [...pending.values()].filter((waiting) => now - waiting.answeredAt > options.timeoutMs)) {
        missed++;
        pending.delete(entry.word);
      }
      const queries = orQueries([...pending.keys()]);
      if (queries.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      else await Promise.all(queries.map(search));
    }
  };

  const polling = poll();
  const started = performance.now();
  const writes: Promise<void>[] = [];
  const interval = 1000 / options.changesPerSecond;
  for (const [i, target] of options.targets.entries()) {
    const wait = started + i * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    writes.push(change(target));
  }
  const writeSeconds = (performance.now() - started) / 1000;
  await Promise.all(writes);
  writing = false;
  await polling;

  delays.sort((a, b) => a - b);
  searchTimes.sort((a, b) => a - b);
  writeTimes.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms);
  return {
    changes: options.targets.length,
    missed,
    failedWrites,
    failedSearches,
    ...(firstError === undefined ? {} : { firstError }),
    p50Ms: round(quantile(delays, 0.5)),
    p95Ms: round(quantile(delays, 0.95)),
    p99Ms: round(quantile(delays, 0.99)),
    maxMs: round(delays.at(-1) ?? Number.NaN),
    writeP50Ms: round(quantile(writeTimes, 0.5)),
    writeP95Ms: round(quantile(writeTimes, 0.95)),
    searches: searchTimes.length,
    searchP50Ms: round(quantile(searchTimes, 0.5)),
    changesPerSecond: Math.round(((options.targets.length - 1) / writeSeconds) * 10) / 10,
  };
}
