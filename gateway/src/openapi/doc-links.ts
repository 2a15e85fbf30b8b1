import { headingSlug } from '@inkwell/markdown/document';
import { docPagePath } from '../docs/doc-pages.js';
import type { OpenApiObject } from './openapi.document.js';

/** A citation of a documentation page in a description: `docs/api/lists.md`, optionally with `, "<section heading>"`. */
const CITATION = /docs\/((?:[a-z0-9-]+\/)?[a-z0-9][a-z0-9_-]*\.md)(?:, "([^"]+)")?/gi;

/**
 * `text` with every citation of a documentation page (the form the code cites pages in,
 * `docs/api/<page>.md, "<section heading>"`) turned into a Markdown link to the page the gateway
 * serves (`[the lists documentation](/docs/api/lists)`, `["Idempotent POSTs"](/docs/api/foundation#idempotent-posts)`),
 * so that no description names a repository path (docs/api/reference.md, "Served pages"). A
 * citation of a file that is not served is left as it is.
 */
export function linkDocCitations(text: string): string {
  return text.replace(CITATION, (citation, file: string, section: string | undefined) => {
    const path = docPagePath(file);
    if (path === undefined) return citation;
    const name = file.replace(/^.*\//, '').replace(/\.md$/, '');
    return section === undefined ? `[the ${name} documentation](${path})` : `[“${section}”](${path}#${headingSlug(section)})`;
  });
}

/** A copy of the OpenAPI document whose every `description` has its documentation citations linked (see linkDocCitations). */
export function withServedDocLinks(document: OpenApiObject): OpenApiObject {
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') return key === 'description' ? linkDocCitations(value) : value;
    if (Array.isArray(value)) return value.map((item) => walk(item, undefined));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, walk(member, name)]));
    return value;
  };
  return walk(document, undefined) as OpenApiObject;
}
