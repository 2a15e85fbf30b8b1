import { once, type EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Writes `chunk` to `out` and waits, when `out`'s buffer is full, until the client has taken it
 * (`drain`), so a download runs no further ahead of its reader than one chunk. Rejects when
 * `signal` aborts meanwhile (the client left, or the download's deadline passed).
 */
export async function writeOut(out: Writable, chunk: string | Buffer, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (!out.write(chunk)) await once(out, 'drain', { signal });
}

/**
 * Resolves at the first of `events` (each an emitter and an event name), rejects with the reason
 * of `signal` when it aborts first; every listener is removed either way.
 */
export function firstEvent(signal: AbortSignal, ...events: readonly (readonly [EventEmitter, string])[]): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const settle = (error?: unknown) => {
      for (const [emitter, name] of events) emitter.off(name, onEvent);
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error as Error);
    };
    const onEvent = () => settle();
    const onAbort = () => settle(signal.reason ?? new Error('aborted'));
    for (const [emitter, name] of events) emitter.on(name, onEvent);
    signal.addEventListener('abort', onAbort);
  });
}

/** A date as the downloads show it: `2026-11-26`, UTC. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The line of facts under a story's title: status, rating, words, dates. */
export function storyFacts(story: { readonly status: string; readonly contentRating: string; readonly numWords: number; readonly published: boolean; readonly datePublished: Date | undefined; readonly dateUpdated: Date | undefined }): string[] {
  const facts = [`Status: ${story.status}`, `Rating: ${story.contentRating}`, `${story.numWords.toLocaleString('en-US')} words`];
  if (!story.published) facts.push('Draft');
  if (story.datePublished !== undefined) facts.push(`Published ${dayOf(story.datePublished)}`);
  if (story.dateUpdated !== undefined) facts.push(`Updated ${dayOf(story.dateUpdated)}`);
  return facts;
}
