import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './index.js';

describe('renderMarkdown', () => {
  it('renders ordinary Markdown', () => {
    expect(renderMarkdown('Hello *world*')).toBe('<p>Hello <em>world</em></p>');
    expect(renderMarkdown('[site](https://example.org)')).toBe('<p><a href="https://example.org" rel="nofollow noopener noreferrer">site</a></p>');
  });

  it('never lets a script, an event handler or a javascript: URL through', () => {
    const html = renderMarkdown([
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '[click](javascript:alert(1))',
      '![x](javascript:alert(1))',
      '<a href="javascript:alert(1)">a</a>',
    ].join('\n\n'));
    expect(html).not.toMatch(/<script/i);
    // Escaped source text may mention onerror; no element may carry an event handler.
    expect(html).not.toMatch(/<[^>]*\son\w+=/i);
    expect(html).not.toMatch(/<a\s[^>]*href="javascript:/i);
    expect(html).not.toMatch(/<img\s[^>]*src="javascript:/i);
  });

  it('returns an empty string for empty text', () => {
    expect(renderMarkdown('')).toBe('');
  });
});
