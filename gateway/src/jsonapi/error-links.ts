/** Where the reference pages live (served by the gateway, docs/api/reference.md, "Error pages"). */
export const DOCS_PATH = '/docs';

/**
 * The `links.about` of an error entry: the page about its code, `/docs/errors/<code>`, as a
 * root-relative URI reference (JSON:API 1.1 links are URI references), so it resolves against
 * whichever origin answered.
 */
export function errorAboutPath(code: string): string {
  return `${DOCS_PATH}/errors/${code}`;
}
