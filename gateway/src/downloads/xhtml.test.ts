import { describe, expect, it } from 'vitest';
import { escapeXml, toXhtml } from './xhtml.js';

describe('toXhtml', () => {
  it('self-closes void elements and decodes HTML entities into characters', () => {
    expect(toXhtml('<p>a<br>b&nbsp;&copy;&amp;</p><hr>')).toBe('<p>a<br/>b\u00A0©&amp;</p><hr/>');
  });

  it('turns images into links labelled by their alt text, and keeps only links that leave the document', () => {
    expect(toXhtml('<p><img src="https://x.test/a.png" alt="A cat"><img src="https://x.test/b.png"></p>')).toBe('<p><a href="https://x.test/a.png">[A cat]</a><a href="https://x.test/b.png">[image]</a></p>');
    expect(toXhtml('<a href="other.html">rel</a> <a href="#x">frag</a> <a href="https://x.test/?a=1&amp;b=2" title="T" rel="nofollow noopener noreferrer">ok</a>')).toBe(
      'rel frag <a href="https://x.test/?a=1&amp;b=2" title="T" rel="nofollow noopener noreferrer">ok</a>',
    );
  });

  it('keeps only the attributes the renderer writes and drops what it never writes', () => {
    expect(toXhtml('<ol start="3" class="x"><li onclick="y">a</li></ol><td style="text-align:center;color:red">c</td><td style="text-align:right">d</td>')).toBe(
      '<ol start="3"><li>a</li></ol><td>c</td><td style="text-align: right">d</td>',
    );
    expect(toXhtml('<script>alert(1)</script><div><span>kept</span></div><!-- no -->')).toBe('kept');
  });

  it('removes characters XML forbids and escapes the rest', () => {
    expect(toXhtml('<p>a\u0001b\uFFFEc "q" \uD800 😀</p>')).toBe('<p>abc &quot;q&quot;  😀</p>');
    expect(escapeXml('<&>"\u0007')).toBe('&lt;&amp;&gt;&quot;');
  });
});
