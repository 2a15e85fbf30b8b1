import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { Chapter } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { writeEpub } from './epub.writer.js';
import type { DownloadStory } from './story-download.source.js';
import { writeText } from './text.writer.js';

const STORY: DownloadStory = {
  id: '1', title: 'Endless', shortDescription: '', description: '', descriptionHtml: '', authorName: 'someone', tagNames: [], status: 'incomplete',
  contentRating: 'everyone', numWords: 0, published: true, datePublished: undefined, dateUpdated: undefined, dateModified: new Date('2026-01-01T00:00:00Z'), url: 'http://127.0.0.1/api/v1/stories/1',
};
/** About 1 MB of text that does not compress away, so that a few chapters fill every buffer. */
const BIG = Array.from({ length: 40_000 }, (_, i) => `w${(i * 7919) % 100_003}`).join(' ');

/** An endless story whose chapters are counted as they are taken, and whose end is recorded. */
function endlessChapters(): { chapters: AsyncGenerator<Chapter>; taken: () => number; closed: () => boolean } {
  let taken = 0;
  let closed = false;
  async function* chapters(): AsyncGenerator<Chapter> {
    try {
      for (;;) {
        taken++;
        yield { id: String(taken), title: `Chapter ${taken}`, content: BIG, contentHtml: `<p>${BIG}</p>`, authorsNote: '', authorsNoteHtml: '', published: true } as Chapter;
      }
    } finally {
      closed = true;
    }
  }
  return { chapters: chapters(), taken: () => taken, closed: () => closed };
}

/** A client that reads nothing: its first write never completes, so its buffer stays full. */
function stalledClient(): Writable {
  return new Writable({ highWaterMark: 64 * 1024, write: () => undefined });
}

describe.each([
  ['EPUB', writeEpub],
  ['text', (out: Writable, story: DownloadStory, chapters: AsyncIterable<Chapter>, signal: AbortSignal) => writeText(out, story, [], chapters, signal)],
] as const)('the %s writer', (_name, write) => {
  it('stops reading chapters while the client does not read, and gives up when the download is aborted', async () => {
    const { chapters, taken, closed } = endlessChapters();
    const abort = new AbortController();
    const writing = write(stalledClient(), STORY, chapters, abort.signal);
    writing.catch(() => undefined);
    // Nothing can be awaited here: what is checked is that no progress happens. Half a second is
    // thousands of chapters for a writer that ignores backpressure.
    await delay(500);
    expect(taken()).toBeLessThanOrEqual(3);
    abort.abort();
    await expect(writing).rejects.toThrow();
    expect(closed()).toBe(true);
  });
});
