import { eventually } from '@inkwell/testing';
import type { BenchRequest } from './load.runner.js';
import type { BenchContext } from './suite.js';

/** How long one page may keep answering 503 (a busy machine's deadlines) before the walk fails. */
const UNAVAILABLE_FOR_MS = 60_000;

/**
 * Page `page` of the list at `path` (e.g. `/stories`) as `token`, reached like a client does by
 * following `links.next` from the first page, asking again for a page answered 503 (as its
 * Retry-After invites); throws when the list ends before it or a page fails otherwise. The cursor
 * of the returned path can be reused for every request of a row.
 */
export async function pageByCursor(context: BenchContext, path: string, token: string, page: number): Promise<BenchRequest> {
  let url = `${context.system.apiUrl}${path}`;
  for (let current = 1; current < page; current++) {
    let answer: { status: number; text: string } = { status: 0, text: '' };
    await eventually(
      async () => {
        const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        answer = { status: response.status, text: await response.text() };
        return answer.status !== 503;
      },
      { timeoutMs: UNAVAILABLE_FOR_MS, intervalMs: 1_000, what: () => `page ${current} of ${path} to be answered other than 503` },
    );
    if (answer.status !== 200) throw new Error(`following cursors of ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
    const body = JSON.parse(answer.text) as { links?: { next?: string } };
    if (!body.links?.next) throw new Error(`${path} ended at page ${current}, before page ${page}`);
    url = body.links.next;
  }
  return { path: url.slice(url.indexOf('/api/v1') + '/api/v1'.length), token };
}
