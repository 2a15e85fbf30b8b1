import { describe, expect, it } from 'vitest';
import { headingSlug, renderDocument } from './document.js';

const links = { resolve: (href: string) => (href.startsWith('lists.md') ? href.replace('lists.md', '/docs/api/lists') : undefined) };

describe('renderDocument', () => {
  it("gives headings GitHub's ids, numbering repeats, and names the first level-1 heading the title", () => {
    const page = renderDocument('# Stories, chapters and tags\n\n## Search *(decision)*\n\n## GET /stories\n\n## Notes\n\n## Notes\n', links);
    expect(page.title).toBe('Stories, chapters and tags');
    expect(page.headings.map((heading) => heading.id)).toEqual(['stories-chapters-and-tags', 'search-decision', 'get-stories', 'notes', 'notes-1']);
    expect(page.html).toContain('<h2 id="search-decision">Search <em>(decision)</em></h2>');
    expect(headingSlug('Demo data (`npm run dev`)')).toBe('demo-data-npm-run-dev');
  });

  it('rewrites relative links, keeps absolute ones and fragments, and leaves unpublished targets as text', () => {
    const { html } = renderDocument('See [lists](lists.md#cursors), [the spec](https://jsonapi.org/), [above](#notes) and [the code](../../gateway/src/main.ts).', links);
    expect(html).toContain('<a href="/docs/api/lists#cursors">lists</a>');
    expect(html).toContain('<a href="https://jsonapi.org/" rel="noopener noreferrer">the spec</a>');
    expect(html).toContain('<a href="#notes">above</a>');
    expect(html).toContain('and the code.');
    expect(html).not.toContain('gateway/src');
  });

  it('lets nothing run: raw HTML is escaped, no javascript: href', () => {
    const { html } = renderDocument('<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>', { resolve: (href) => href });
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/href="javascript/i);
    expect(html).not.toMatch(/<img/);
  });
});
