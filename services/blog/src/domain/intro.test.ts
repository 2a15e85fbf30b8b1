import { describe, expect, it } from 'vitest';
import { introFromHtml } from './intro.js';

describe('introFromHtml', () => {
  it('keeps the text of the markup, with block boundaries as spaces and entities decoded', () => {
    const html = '<h1>Hello</h1><p>Fish &amp; <em>chips</em> &lt;3</p><ul><li>one</li><li>two</li></ul><p>&quot;quoted&quot; &#39;single&#39; &#x263A;</p>';
    expect(introFromHtml(html)).toBe('Hello Fish & chips <3 one two "quoted" \'single\' ☺');
  });

  it('returns short text whole, without an ellipsis', () => {
    expect(introFromHtml('<p>Just a line.</p>')).toBe('Just a line.');
  });

  it('cuts long text at the last space before the limit and adds an ellipsis', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const intro = introFromHtml(`<p>${words}</p>`);
    expect([...intro].length).toBeLessThanOrEqual(301);
    expect(intro.endsWith('…')).toBe(true);
    expect(words.startsWith(intro.slice(0, -1))).toBe(true);
    expect(words[intro.length - 1]).toBe(' ');
  });

  it('cuts a single very long word at the limit', () => {
    const intro = introFromHtml(`<p>${'x'.repeat(1000)}</p>`, 300);
    expect(intro).toBe(`${'x'.repeat(300)}…`);
  });

  it('counts characters, not UTF-16 units, so emoji are never split', () => {
    const intro = introFromHtml(`<p>${'😀'.repeat(400)}</p>`, 10);
    expect(intro).toBe(`${'😀'.repeat(10)}…`);
  });

  it('gives an empty intro for markup without text', () => {
    expect(introFromHtml('<p><img src="https://example.org/a.png" alt=""></p>')).toBe('');
  });
});
