import { prng } from '@inkwell/datagen';
import { callApi, dataId, type ApiAnswer, type ApiRequest } from './api-client.js';
import { WORDS, type Actor } from './world.js';

/** One request the load made and how it ended. */
export interface RequestRecord {
  readonly op: string;
  /** Milliseconds since the epoch. */
  readonly start: number;
  readonly end: number;
  /** HTTP status, or 0 for no answer. */
  readonly status: number;
  /** A 503 carried Retry-After (docs/api/foundation.md, "Readiness and backend outages"). */
  readonly retryAfter: boolean;
  /** Network error code when no answer came. */
  readonly error?: string;
}

/** A write the API acknowledged and that nothing later touched: it must exist afterwards. */
export interface AcknowledgedWrite {
  readonly kind: 'comment' | 'private_message';
  readonly id: string;
}

/** Options of {@link MixedLoad}. */
export interface MixedLoadOptions {
  readonly apiUrl: string;
  readonly actors: readonly Actor[];
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Requests per second for all workers together; unset = as fast as answers come (closed loop). */
  readonly ratePerSecond?: number;
  /** A seed for the choice of operations (repeatable mixes). */
  readonly seed?: number;
}

/** The op name of a passing story's deletion (reports count them). */
export const PASSING_STORY_DELETED = 'passing story: delete';

/** How often a held worker looks whether it may send again. */
const HOLD_POLL_MS = 10;

type Operation = (actor: Actor, other: Actor) => ApiRequest & { op: string; after?: (answer: ApiAnswer) => void };

/** An actor's short-lived story: written, published, voted on and shelved by others, then deleted. */
interface PassingStory {
  readonly id: string;
  /** What it has: a draft, a published chapter, or everything (published itself). */
  readonly stage: 'draft' | 'chapter' | 'published';
}

/**
 * A realistic mixed load through the gateway with real tokens: reads, searches, chapter content
 * reads (views), votes, comments, follows, private messages, shelf changes and the occasional
 * unpublish/publish, by several users on each other's stories; and stories that pass: each
 * actor in turn writes one, publishes it, lets the others vote on it and shelve it, and deletes
 * it (the deletion's events reach every service that copied or counted it). Records every
 * request; keeps the ids of acknowledged comments and messages (on the lasting stories only) so
 * that their loss would be noticed.
 */
export class MixedLoad {
  readonly records: RequestRecord[] = [];
  readonly acknowledged: AcknowledgedWrite[] = [];
  private readonly inFlight = new Map<number, { op: string; start: number }>();
  private readonly random: () => number;
  private readonly shelfItems = new Map<string, Map<string, string>>();
  /** Each actor's passing story, by actor id; an actor whose step is in flight is in `passingBusy`. */
  private readonly passing = new Map<string, PassingStory>();
  private readonly passingBusy = new Set<string>();
  private running = false;
  private workers: Promise<void>[] = [];
  private nextSlot = 0;
  private sequence = 0;
  private closed: (() => boolean) | undefined;

  constructor(private readonly options: MixedLoadOptions) {
    this.random = prng(options.seed ?? 1);
  }

  /** Requests in flight now (start times), e.g. at the moment a fault is injected. */
  inFlightNow(): number[] {
    return [...this.inFlight.values()].map((entry) => entry.start);
  }

  /** Starts the workers (no-op when running). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.nextSlot = Date.now();
    this.workers = Array.from({ length: this.options.concurrency }, () => this.worker());
  }

  /**
   * Holds every new request while `closed()` is true (a load balancer with no ready gateway to
   * send to); undefined sends again. Requests in flight go on.
   */
  holdWhile(closed: (() => boolean) | undefined): void {
    this.closed = closed;
  }

  /** Stops the workers after their request in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private readonly operations: readonly [number, Operation][] = [
    [10, (_a, b) => ({ op: 'read story', method: 'GET', path: `/stories/${b.storyId}?include=author` })],
    [6, () => ({ op: 'list stories', method: 'GET', path: '/stories?sort=-hotness&page[size]=10' })],
    [6, () => ({ op: 'search', method: 'GET', path: `/stories?query=${this.pick(WORDS)}&page[size]=10` })],
    [8, (_a, b) => ({ op: 'read chapter (view)', method: 'GET', path: `/chapters/${b.chapterId}?fields[chapter]=title,content` })],
    [4, (_a, b) => ({ op: 'read user', method: 'GET', path: `/users/${b.id}` })],
    [4, (a) => ({ op: 'read shelf items', method: 'GET', path: `/bookshelves/${a.shelfId}/items?include=story` })],
    [3, () => ({ op: 'read mailbox', method: 'GET', path: '/users/me/private-messages?page[size]=10' })],
    [8, (_a, b) => ({ op: 'vote', method: 'PUT', path: `/stories/${this.storyToUse(b)}/rating`, body: { data: { type: 'rating', attributes: { value: this.random() < 0.7 ? 'like' : 'dislike' } } } })],
    [2, (_a, b) => ({ op: 'withdraw vote', method: 'DELETE', path: `/stories/${this.storyToUse(b)}/rating` })],
    [
      5,
      (_a, b) => ({
        op: 'comment',
        method: 'POST',
        path: `/stories/${b.storyId}/comments`,
        body: { data: { type: 'comment', attributes: { content: `Lovely *${this.pick(WORDS)}*.` } } },
        after: (answer) => this.acknowledge('comment', answer),
      }),
    ],
    [3, (_a, b) => ({ op: 'follow', method: 'POST', path: '/users/me/following', body: { data: { type: 'follow', relationships: { followed: { data: { type: 'user', id: b.id } } } } } })],
    [2, (_a, b) => ({ op: 'unfollow', method: 'DELETE', path: `/users/me/following/${b.id}` })],
    [
      4,
      (_a, b) => ({
        op: 'message',
        method: 'POST',
        path: `/users/${b.id}/private-messages`,
        body: { data: { type: 'private_message', attributes: { subject: 'Hello', content: `About the ${this.pick(WORDS)}.` } } },
        after: (answer) => this.acknowledge('private_message', answer),
      }),
    ],
    [5, (a, b) => this.shelfOperation(a, b)],
    [1, (a) => ({ op: 'unpublish/publish', method: 'PATCH', path: `/stories/${a.storyId}`, body: { data: { type: 'story', id: a.storyId, attributes: { published: this.random() < 0.6 } } } })],
    [2, (a, b) => this.passingStep(a, b)],
  ];

  /** The story of `other` to vote on or shelve: now and then its passing story, once published. */
  private storyToUse(other: Actor): string {
    const passing = this.passing.get(other.id);
    return passing?.stage === 'published' && this.random() < 0.4 ? passing.id : other.storyId;
  }

  /**
   * The next step of the actor's passing story (written, a chapter published, published,
   * deleted); a step that failed (e.g. during a fault) is tried again next time. While a step of
   * the actor is in flight, another worker reads a story instead.
   */
  private passingStep(actor: Actor, other: Actor): ReturnType<Operation> {
    if (this.passingBusy.has(actor.id)) return { op: 'read story', method: 'GET', path: `/stories/${other.storyId}` };
    this.passingBusy.add(actor.id);
    /** One step: on `expected`, the story becomes `next(answer)` (none: it is gone); on 404 it is gone too (start a new one); otherwise it stays for another try. */
    const step = (op: string, request: Omit<ApiRequest, 'token'>, expected: number, next: (answer: ApiAnswer) => PassingStory | undefined): ReturnType<Operation> => ({
      op,
      ...request,
      after: (answer) => {
        this.passingBusy.delete(actor.id);
        const story = answer.status === expected ? next(answer) : undefined;
        if (story !== undefined) this.passing.set(actor.id, story);
        else if (answer.status === expected || answer.status === 404) this.passing.delete(actor.id);
      },
    });
    const story = this.passing.get(actor.id);
    if (story === undefined) {
      const word = this.pick(WORDS);
      const body = { data: { type: 'story', attributes: { title: `A passing ${word}`, short_description: `Soon gone, like the ${word}.` } } };
      return step('passing story: write', { method: 'POST', path: '/stories', body }, 201, (answer) => {
        const id = dataId(answer);
        return id === undefined ? undefined : { id, stage: 'draft' };
      });
    }
    if (story.stage === 'draft') {
      const body = { data: { type: 'chapter', attributes: { title: 'Only', content: `It passed by the ${this.pick(WORDS)}. `.repeat(10), published: true } } };
      return step('passing story: chapter', { method: 'POST', path: `/stories/${story.id}/chapters`, body }, 201, () => ({ id: story.id, stage: 'chapter' }));
    }
    if (story.stage === 'chapter') {
      const body = { data: { type: 'story', id: story.id, attributes: { published: true } } };
      return step('passing story: publish', { method: 'PATCH', path: `/stories/${story.id}`, body }, 200, () => ({ id: story.id, stage: 'published' }));
    }
    return step(PASSING_STORY_DELETED, { method: 'DELETE', path: `/stories/${story.id}` }, 204, () => undefined);
  }

  private readonly totalWeight = this.operations.reduce((sum, [weight]) => sum + weight, 0);

  private shelfOperation(actor: Actor, other: Actor): ReturnType<Operation> {
    const items = this.shelfItems.get(actor.shelfId) ?? new Map<string, string>();
    this.shelfItems.set(actor.shelfId, items);
    const storyId = this.storyToUse(other);
    const itemId = items.get(storyId);
    if (itemId === undefined) {
      return {
        op: 'shelve story',
        method: 'POST',
        path: `/bookshelves/${actor.shelfId}/items`,
        body: { data: { type: 'bookshelf_item', relationships: { story: { data: { type: 'story', id: storyId } } } } },
        after: (answer) => {
          const id = dataId(answer);
          if (answer.status === 201 && id !== undefined) items.set(storyId, id);
        },
      };
    }
    if (this.random() < 0.6) {
      return {
        op: 'mark item',
        method: 'PATCH',
        path: `/bookshelves/${actor.shelfId}/items/${itemId}`,
        body: { data: { type: 'bookshelf_item', id: itemId, attributes: { read: this.random() < 0.5 } } },
        // The item left with its story's deletion.
        after: (answer) => {
          if (answer.status === 404) items.delete(storyId);
        },
      };
    }
    return {
      op: 'unshelve story',
      method: 'DELETE',
      path: `/bookshelves/${actor.shelfId}/items/${itemId}`,
      after: (answer) => {
        if (answer.status === 204 || answer.status === 404) items.delete(storyId);
      },
    };
  }

  private acknowledge(kind: AcknowledgedWrite['kind'], answer: ApiAnswer): void {
    const id = dataId(answer);
    if (answer.status === 201 && id !== undefined) this.acknowledged.push({ kind, id });
  }

  private choose(): Operation {
    let ticket = this.random() * this.totalWeight;
    for (const [weight, operation] of this.operations) {
      ticket -= weight;
      if (ticket < 0) return operation;
    }
    return this.operations[0]![1];
  }

  private async pace(): Promise<void> {
    const rate = this.options.ratePerSecond;
    if (rate === undefined) return;
    const slot = Math.max(this.nextSlot, Date.now());
    this.nextSlot = slot + 1000 / rate;
    const wait = slot - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  private async worker(): Promise<void> {
    const { actors } = this.options;
    while (this.running) {
      await this.pace();
      while (this.running && this.closed?.() === true) await new Promise((resolve) => setTimeout(resolve, HOLD_POLL_MS));
      if (!this.running) break;
      const actor = this.pick(actors);
      let other = this.pick(actors);
      if (other === actor && actors.length > 1) other = actors[(actors.indexOf(actor) + 1) % actors.length]!;
      const { op, after, ...request } = this.choose()(actor, other);
      const id = this.sequence++;
      const start = Date.now();
      this.inFlight.set(id, { op, start });
      const answer = await callApi(this.options.apiUrl, { ...request, token: actor.token });
      this.inFlight.delete(id);
      after?.(answer);
      this.records.push({
        op,
        start,
        end: Date.now(),
        status: answer.status,
        retryAfter: answer.headers.get('retry-after') !== null,
        ...(answer.error === undefined ? {} : { error: answer.error }),
      });
    }
  }
}

/** A request that ended in a way the API never should: a 5xx other than 503 with Retry-After, or no answer. */
export function unacceptable(record: RequestRecord): boolean {
  if (record.status === 0) return true;
  if (record.status === 503) return !record.retryAfter;
  return record.status >= 500;
}

/** Requests by outcome: the status, or the network error for requests without an answer. */
export function byStatus(records: readonly RequestRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const record of records) {
    const key = record.status === 0 ? (record.error ?? 'no answer') : record.status === 503 && !record.retryAfter ? '503 (no Retry-After)' : String(record.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
