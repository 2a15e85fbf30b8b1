import type { BenchRequest } from './load.runner.js';
import type { BenchContext } from './suite.js';

/**
 * Page `page` of the list at `path` (e.g. `/stories`) as `token`, reached like a client does by
 * following `links.next` from the first page; throws when the list ends before it. The cursor
 * of the returned path can be reused for every request of a row.
 */
export async function pageByCursor(context: BenchContext, path: string, token: string, page: number): Promise<BenchRequest> {
  let url = `${context.system.apiUrl}${path}`;
  for (let current = 1; current < page; current++) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`following cursors of ${path}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { links?: { next?: string } };
    if (!body.links?.next) throw new Error(`${path} ended at page ${current}, before page ${page}`);
    url = body.links.next;
  }
  return { path: url.slice(url.indexOf('/api/v1') + '/api/v1'.length), token };
}
