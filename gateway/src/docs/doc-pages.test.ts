import { describe, expect, it } from 'vitest';
import { API_V1_PREFIX } from '../jsonapi/api-links.js';
import { apiDocument } from '../openapi/api.document.js';
import { linkDocCitations } from '../openapi/doc-links.js';
import { docPagePath, loadDocPages, resolveDocLink } from './doc-pages.js';

describe('the served documentation pages (docs/api/reference.md, "Served pages")', () => {
  it('serves docs/<page>.md, docs/api/<page>.md and docs/guide/<page>.md under /docs, nothing else', () => {
    expect(docPagePath('api.md')).toBe('/docs/api');
    expect(docPagePath('api/lists.md')).toBe('/docs/api/lists');
    expect(docPagePath('guide/first-app.md')).toBe('/docs/guide/first-app');
    expect(docPagePath('benchmarks.md')).toBe('/docs/benchmarks');
    expect(docPagePath('errors.md')).toBeUndefined();
    expect(docPagePath('internal/notes.md')).toBeUndefined();
    expect(docPagePath('api/lists.txt')).toBeUndefined();
  });

  it('rewrites relative links to the served pages, keeping fragments; other targets get none', () => {
    expect(resolveDocLink('api/auth.md', 'accounts.md#scopes')).toBe('/docs/api/accounts#scopes');
    expect(resolveDocLink('api.md', 'api/auth.md#security-model')).toBe('/docs/api/auth#security-model');
    expect(resolveDocLink('api/foundation.md', '../benchmarks.md')).toBe('/docs/benchmarks');
    expect(resolveDocLink('guide/first-app.md', '../api/lists.md')).toBe('/docs/api/lists');
    expect(resolveDocLink('api/foundation.md', '../../gateway/src/main.ts')).toBeUndefined();
    expect(resolveDocLink('api/foundation.md', '../../README.md')).toBeUndefined();
    expect(resolveDocLink('api/foundation.md', '/etc/passwd')).toBeUndefined();
  });

  it('renders every page of the repository with a title, and every link in them leads to a served page and an existing heading', () => {
    const pages = loadDocPages();
    expect(pages.has('/docs/api')).toBe(true);
    expect(pages.has('/docs/api/auth')).toBe(true);
    const broken: string[] = [];
    for (const page of pages.values()) {
      expect(page.title, page.file).not.toBe(page.file);
      for (const [, href] of page.html.matchAll(/<a href="([^"]+)"/g)) {
        const target = (href as string).replaceAll('&amp;', '&');
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [path, fragment] = target.startsWith('#') ? [page.path, target.slice(1)] : (target.split('#') as [string, string | undefined]);
        const linked = pages.get(path);
        if (linked === undefined || (fragment !== undefined && !linked.headings.some((heading) => heading.id === fragment))) broken.push(`${page.file}: ${target}`);
      }
      expect(page.html, page.file).not.toMatch(/href="[^"]*\.md(#|")/);
    }
    expect(broken).toEqual([]);
  });

  it("links the OpenAPI descriptions' citations of pages to the served pages", () => {
    expect(linkDocCitations('as docs/api/lists.md says')).toBe('as [the lists documentation](/docs/api/lists) says');
    expect(linkDocCitations('(docs/api/foundation.md, "Idempotent POSTs")')).toBe('([“Idempotent POSTs”](/docs/api/foundation#idempotent-posts))');
    expect(linkDocCitations('see tools/deps/README.md')).toBe('see tools/deps/README.md');
  });

  it('gives the API document a version that follows the promise of docs/api/reference.md, "Versioning and deprecation", and names no repository path', () => {
    const document = apiDocument() as { info: { version: string } };
    const [major] = /^(\d+)\.\d+\.\d+$/.exec(document.info.version)?.slice(1) ?? [];
    expect(`/api/v${major}`).toBe(API_V1_PREFIX);
    expect(JSON.stringify(document)).not.toMatch(/docs\/[a-z/]*\.md/);
  });
});
