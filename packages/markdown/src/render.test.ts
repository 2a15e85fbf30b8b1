import { describe, expect, it } from 'vitest';
import { renderHtml } from './render.js';

function html(source: string): string {
  const outcome = renderHtml(source);
  if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
  return outcome.html;
}

const KiB = 1024;
const longUrl = `https://example.org/${'a'.repeat(2000)}`;

describe('renderHtml', () => {
  it('renders ordinary Markdown', () => {
    expect(html('Hello *world*')).toBe('<p>Hello <em>world</em></p>');
    expect(html('[site](https://example.org)')).toBe('<p><a href="https://example.org" rel="nofollow noopener noreferrer">site</a></p>');
    expect(html('"Hi," & <b> `"x"`')).toBe('<p>"Hi," &amp; &lt;b&gt; <code>"x"</code></p>');
  });

  it('never lets a script, an event handler or a javascript: URL through', () => {
    const rendered = html([
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '[click](javascript:alert(1))',
      '![x](javascript:alert(1))',
      '<a href="javascript:alert(1)">a</a>',
    ].join('\n\n'));
    expect(rendered).not.toMatch(/<script/i);
    // Escaped source text may mention onerror; no element may carry an event handler.
    expect(rendered).not.toMatch(/<[^>]*\son\w+=/i);
    expect(rendered).not.toMatch(/<a\s[^>]*href="javascript:/i);
    expect(rendered).not.toMatch(/<img\s[^>]*src="javascript:/i);
  });

  it('returns an empty string for empty text', () => {
    expect(html('')).toBe('');
  });

  it('keeps a link reference working when used a few times', () => {
    const rendered = html(`[a]: ${longUrl}\n\n[a] and [a] and ![a]`);
    expect(rendered.split(longUrl)).toHaveLength(4);
  });

  it('refuses a long link reference repeated until its HTML passes the bound', () => {
    // 300 KiB of text that would expand to ~100 MiB of HTML.
    expect(renderHtml(`[a]: ${longUrl}\n\n${'[a]'.repeat(100 * KiB)}`)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('refuses a long image reference repeated until its HTML passes the bound', () => {
    expect(renderHtml(`[a]: ${longUrl}\n\n${'![a]'.repeat(75 * KiB)}`)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('measures the sanitised HTML in bytes of UTF-8, accepting exactly the bound', () => {
    // "<p>" + 1000 × "é" (2 bytes each) + "</p>" = 2007 bytes.
    const text = 'é'.repeat(1000);
    expect(renderHtml(text, 2007)).toEqual({ ok: true, html: `<p>${text}</p>` });
    expect(renderHtml(text, 2006)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('does not count what the sanitiser gives back: 1 MiB of quotes renders to 1 MiB', () => {
    const text = '"'.repeat(1024 * KiB - 8);
    const outcome = renderHtml(text);
    expect(outcome.ok && Buffer.byteLength(outcome.html)).toBe(text.length + '<p></p>'.length);
  });
});
