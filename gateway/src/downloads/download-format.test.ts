import { describe, expect, it } from 'vitest';
import { contentDisposition } from './download-format.js';

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the UTF-8 title (RFC 6266, RFC 8187)', () => {
    expect(contentDisposition('Brontë’s Tale', '7', 'epub')).toBe(`attachment; filename="Bronte_s Tale.epub"; filename*=UTF-8''Bront%C3%AB%E2%80%99s%20Tale.epub`);
  });

  it('keeps path separators, quotes, controls and leading dots out of both names', () => {
    const header = contentDisposition('../..\\"evil"\r\n/name', '7', 'txt');
    expect(header).toBe(`attachment; filename="evil name.txt"; filename*=UTF-8''evil%20name.txt`);
  });

  it('names a story whose title leaves nothing by its id', () => {
    expect(contentDisposition('星の物語', '42', 'html')).toBe(`attachment; filename="story-42.html"; filename*=UTF-8''%E6%98%9F%E3%81%AE%E7%89%A9%E8%AA%9E.html`);
    expect(contentDisposition('///', '42', 'html')).toBe(`attachment; filename="story-42.html"; filename*=UTF-8''story-42.html`);
  });
});
