import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw } from './html.js';

describe('html templates', () => {
  it('escape every interpolated string, in content and attributes', () => {
    const name = `<script>alert("x")</script>' onload='x`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x</p>',
    );
  });

  it('keep nested templates and raw markup, join arrays and drop null, undefined and false', () => {
    const items = ['a&b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${raw('<hr>')}${0}`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul><hr>0');
  });

  it('escapeHtml leaves harmless text alone', () => {
    expect(escapeHtml('plain text 123')).toBe('plain text 123');
  });
});
