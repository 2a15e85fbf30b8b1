/**
 * A Markdown text of 1 MiB (the largest the API takes) that cannot be rendered within the bounds
 * of docs/api/foundation.md ("Markdown"): 262 144 emphasised letters take seconds to parse and
 * would render to 2.75 MiB of HTML. A service must refuse it, without stalling, whichever bound
 * it hits first.
 */
export const HOSTILE_MARKDOWN = '_a_ '.repeat(256 * 1024);

/** The `detail` of a refused text: the HTML bound or the deadline (both are possible for HOSTILE_MARKDOWN). */
export const MARKDOWN_REFUSAL_DETAIL = /^The Markdown (renders to more than 2097152 bytes of HTML|takes too long to render \(more than \d+ ms\))\.$/;

/**
 * Runs a request that sends HOSTILE_MARKDOWN and, while it is in flight, an ordinary one; returns
 * the hostile request's error, the ordinary request's result, and the order in which they
 * settled. A service that renders on its request thread answers the ordinary request last.
 */
export async function whileHostileMarkdownRenders<T>(hostile: () => Promise<unknown>, ordinary: () => Promise<T>): Promise<{ error: unknown; result: T; order: string[] }> {
  const order: string[] = [];
  const refused = hostile().then(
    () => {
      order.push('hostile');
      throw new Error('the hostile Markdown was accepted');
    },
    (error: unknown) => {
      order.push('hostile');
      return error;
    },
  );
  const answered = ordinary().then((result) => {
    order.push('ordinary');
    return result;
  });
  const [error, result] = await Promise.all([refused, answered]);
  return { error, result, order };
}
