import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestUser, eventuallyValue, type TestUser } from '@inkwell/testing';
import { Parser } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { epubcheck, epubcheckClassPath } from './support/epubcheck.js';
import { zipEntries } from './support/zip-entries.js';

const DATABASE = 'inkwell_test_gateway_downloads';
/** Events reach the story's counts within this, on a busy machine. */
const EVENT_WAIT_MS = 30_000;
/** epubcheck is a JVM run per book; on a loaded 2-core machine one takes up to a minute. */
const EPUBCHECK_MS = 180_000;

/** Every construct the Markdown renderer knows, with text that needs escaping in XML. */
const EVERY_CONSTRUCT = `# Heading 1
## Heading 2
### Heading 3
#### Heading 4
##### Heading 5
###### Heading 6

A paragraph with *emphasis*, **strong**, ~~struck~~, \`inline <code> & more\`, "quotes", 'apostrophes', & < > characters,
a soft break, and a hard break  
right here. Entities as text: &nbsp; &copy; &#x1F600; &amp;.

> A quote
>
> > nested, with **strong** text

- a bullet
- another
  - nested bullet
    1. nested ordered

3. ordered from three
4. four

\`\`\`js
const html = '<p class="x">' + "&amp;" + '</p>';
\`\`\`

    indented code <br>

| left | centre | right |
|:-----|:------:|------:|
| a    |   b    |     c |
| *x*  | \`y\`  |  [z](https://example.com/z) |

---

[a link](https://example.com/?a=1&b=<2>), [a relative link](other-chapter.html), [a fragment](#top), <https://example.org/auto>, https://example.net/bare, <mailto:someone@example.com>,
![an image](https://example.com/picture.png) and ![](https://example.com/no-alt.png), [reference][ref].

[ref]: https://example.com/reference "A title"

<script>alert(1)</script> <img src=x onerror=alert(1)> <div style="color:red">raw html</div>
`;

/** CJK, right-to-left, combining marks, emoji and a character XML refuses. */
const NON_LATIN_TITLE = '星の物語 — قصة النجوم';
const NON_LATIN = `## 第一章

吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。

في البدء كان الكلمة، والكلمة كانت عند الله. עברית: בראשית ברא אלוהים.

Ελληνικά, Русский текст, हिन्दी, 한국어, ñ vs ñ (combining), 👩‍👩‍👧 emoji.
`;

let stack: GatewayStack;
let author: TestUser;
/** The author's own account without read_stories. */
let blindAuthor: TestUser;
let reader: TestUser;
let work: string;

beforeAll(async () => {
  // The validator is fetched from Maven Central once (then cached under .cache/) while the stack starts.
  const validator = epubcheckClassPath();
  stack = await startGatewayStack(DATABASE);
  [author, blindAuthor, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['write_stories'] }),
    createTestUser(stack.system),
  ]);
  work = await mkdtemp(join(tmpdir(), 'inkwell-downloads-'));
  await validator;
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

interface Resource {
  readonly id: string;
  readonly attributes: Record<string, unknown>;
  readonly links?: Record<string, string>;
}

/** A JSON:API call as `user`; the answer's primary data. */
async function api(user: TestUser, method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200): Promise<Resource> {
  const response = await fetch(`${stack.origin}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${user.token}`, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBe(status);
  return (JSON.parse(text) as { data: Resource }).data;
}

interface ChapterInput {
  readonly title: string;
  readonly content?: string;
  readonly authors_note?: string;
  readonly published?: boolean;
}

/** A story of `owner` with `chapters` (published unless they say otherwise), published unless `publish` is false. */
async function story(owner: TestUser, attributes: Record<string, unknown>, chapters: readonly ChapterInput[], options: { publish?: boolean; tags?: readonly string[] } = {}): Promise<{ id: string; chapterIds: string[] }> {
  const relationships = options.tags === undefined ? {} : { relationships: { tags: { data: options.tags.map((id) => ({ type: 'tag', id })) } } };
  const { id } = await api(owner, 'POST', '/stories', { data: { type: 'story', attributes, ...relationships } });
  const chapterIds: string[] = [];
  for (const chapter of chapters) {
    chapterIds.push((await api(owner, 'POST', `/stories/${id}/chapters`, { data: { type: 'chapter', attributes: { content: 'Some words.', published: true, ...chapter } } })).id);
  }
  if (options.publish !== false) await api(owner, 'PATCH', `/stories/${id}`, { data: { type: 'story', id, attributes: { published: true } } });
  return { id, chapterIds };
}

/** GET of a download as `user` (a token string for other callers), with `headers`. */
function download(user: TestUser | string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  const token = typeof user === 'string' ? user : user.token;
  return fetch(`${stack.origin}/api/v1${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
}

/** A 200 download's bytes, after checking its type, attachment and validator. */
async function file(user: TestUser, path: string, mediaType: string): Promise<{ bytes: Buffer; response: Response }> {
  const response = await download(user, path);
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(response.status, `${path}: ${bytes.toString('utf8', 0, 500)}`).toBe(200);
  expect(response.headers.get('content-type')).toBe(mediaType);
  expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"/\\]+"; filename\*=UTF-8''[A-Za-z0-9%._~!$&+^`|-]+$/);
  expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
  return { bytes, response };
}

/** The EPUB of story `id` as `user`, checked by epubcheck (no fatal, no error) and by its container's rules; its files by name. */
async function validEpub(user: TestUser, id: string): Promise<Map<string, string>> {
  const { bytes } = await file(user, `/stories/${id}/download.epub`, 'application/epub+zip');
  const entries = zipEntries(bytes);
  // OCF: `mimetype` first, stored, no extra field, exactly the media type.
  expect(entries[0]).toMatchObject({ name: 'mimetype', method: 0, localExtraLength: 0, offset: 0 });
  expect(entries[0]?.data.toString('ascii')).toBe('application/epub+zip');
  const path = join(work, `story-${id}.epub`);
  await writeFile(path, bytes);
  const report = await epubcheck(path);
  expect({ fatals: report.fatals, errors: report.errors }, report.output).toEqual({ fatals: 0, errors: 0 });
  return new Map(entries.map((entry) => [entry.name, entry.data.toString('utf8')]));
}

/** The element names and attribute names of `markup` (HTML, or XHTML with `xml`), as a parser sees them. */
function markupOf(markup: string, xml = false): { elements: Set<string>; attributes: Set<string> } {
  const elements = new Set<string>();
  const attributes = new Set<string>();
  const parser = new Parser({ onopentag: (name, attribs) => (elements.add(name.toLowerCase()), Object.keys(attribs).forEach((attribute) => attributes.add(attribute.toLowerCase()))) }, { xmlMode: xml });
  parser.write(markup);
  parser.end();
  return { elements, attributes };
}

/** Elements that run, embed or fetch something. */
const ACTIVE_ELEMENTS = ['script', 'img', 'iframe', 'link', 'object', 'embed', 'style', 'video', 'audio', 'source', 'form', 'base', 'meta'];

/** The chapter files of an EPUB in reading order (the spine), as text. */
function chapterFiles(files: Map<string, string>): string[] {
  const opf = files.get('EPUB/package.opf') ?? '';
  const ids = [...opf.matchAll(/<itemref idref="(chapter-\d+)"\/>/g)].map((match) => match[1]);
  return ids.map((id) => files.get(`EPUB/${id}.xhtml`) ?? '');
}

describe('EPUB', () => {
  it(
    'is a valid EPUB 3 of a one-chapter story with its title page, author, tags, description, contents and author’s note',
    async () => {
      const tags = (await fetch(`${stack.origin}/api/v1/tags?filter[kind]=genre&page[size]=2`, { headers: { authorization: `Bearer ${reader.token}` } }).then((r) => r.json())) as { data: { id: string; attributes: { name: string } }[] };
      const { id } = await story(author, { title: 'One Small Tale', short_description: 'Short & sweet', description: 'A *fine* description.' }, [{ title: 'The Only Chapter', content: 'Once upon a time.', authors_note: 'Thanks for *reading*!' }], {
        tags: tags.data.map((tag) => tag.id),
      });
      const files = await validEpub(reader, id);
      const title = files.get('EPUB/title.xhtml') ?? '';
      expect(title).toContain('<h1>One Small Tale</h1>');
      expect(title).toContain(`by ${author.name}`);
      expect(title).toContain('Short &amp; sweet');
      expect(title).toContain('A <em>fine</em> description.');
      for (const tag of tags.data) expect(title).toContain(tag.attributes.name);
      expect(files.get('EPUB/nav.xhtml')).toContain('<a href="chapter-1.xhtml">The Only Chapter</a>');
      const opf = files.get('EPUB/package.opf') ?? '';
      expect(opf).toContain(`<dc:creator>${author.name}</dc:creator>`);
      expect(opf).toContain(`<dc:identifier id="story-id">${stack.origin}/api/v1/stories/${id}</dc:identifier>`);
      const [chapter] = chapterFiles(files);
      expect(chapter).toContain('<h2>The Only Chapter</h2>');
      expect(chapter).toContain('Once upon a time.');
      expect(chapter).toContain('Thanks for <em>reading</em>!');
    },
    EPUBCHECK_MS,
  );

  it(
    'holds 100 chapters in order',
    async () => {
      const chapters = Array.from({ length: 100 }, (_, i) => ({ title: `Part ${i + 1}`, content: `This is part number ${i + 1}.\n\n${'Words upon words. '.repeat(50)}` }));
      const { id } = await story(author, { title: 'A Long Road' }, chapters);
      const files = await validEpub(reader, id);
      const pages = chapterFiles(files);
      expect(pages).toHaveLength(100);
      pages.forEach((page, i) => expect(page).toContain(`<h2>Part ${i + 1}</h2>`));
      const nav = files.get('EPUB/nav.xhtml') ?? '';
      expect([...nav.matchAll(/>Part (\d+)</g)].map((match) => Number(match[1]))).toEqual(chapters.map((_, i) => i + 1));
    },
    EPUBCHECK_MS + 120_000,
  );

  it(
    'carries every Markdown construct as well-formed XHTML, images as links, nothing that runs',
    async () => {
      const { id } = await story(author, { title: 'Markdown <Everything> & More', description: EVERY_CONSTRUCT }, [{ title: 'All of it', content: EVERY_CONSTRUCT, authors_note: EVERY_CONSTRUCT }]);
      const files = await validEpub(reader, id);
      const [chapter] = chapterFiles(files);
      expect(chapter).toContain('<br/>');
      expect(chapter).toContain('<hr/>');
      expect(chapter).toContain('<td style="text-align: right">c</td>');
      expect(chapter).toContain('<a href="https://example.com/picture.png">[an image]</a>');
      expect(chapter).toContain('<a href="https://example.com/no-alt.png">[image]</a>');
      expect(chapter).toContain('a relative link');
      expect(chapter).not.toContain('other-chapter.html');
      // The head links the book's own style sheet; the text itself embeds, runs and fetches nothing.
      const { elements, attributes } = markupOf((chapter ?? '').slice((chapter ?? '').indexOf('<body')), true);
      for (const element of ACTIVE_ELEMENTS) expect(elements).not.toContain(element);
      expect([...attributes].filter((name) => name.startsWith('on') || name === 'src')).toEqual([]);
      // Raw HTML in Markdown is text, and HTML's named entities are characters (XHTML knows only XML's five).
      expect(chapter).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(chapter).not.toMatch(/&(nbsp|copy);/);
    },
    EPUBCHECK_MS,
  );

  it(
    'keeps non-Latin text (CJK, right-to-left) and names the file by its title',
    async () => {
      const { id } = await story(author, { title: NON_LATIN_TITLE, short_description: 'نجوم 星' }, [{ title: '第一章 — الفصل الأول', content: NON_LATIN, authors_note: 'ありがとう\u0007' }]);
      const files = await validEpub(reader, id);
      const [chapter] = chapterFiles(files);
      expect(chapter).toContain('吾輩は猫である。');
      expect(chapter).toContain('في البدء كان الكلمة');
      expect(chapter).toContain('👩‍👩‍👧');
      expect(chapter).toContain('<body dir="auto">');
      expect(chapter).not.toContain('\u0007');
      const response = await download(reader, `/stories/${id}/download.epub`);
      await response.arrayBuffer();
      const disposition = response.headers.get('content-disposition') ?? '';
      expect(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(disposition)?.[1] ?? '')).toBe(`${NON_LATIN_TITLE}.epub`);
      expect(disposition).toMatch(/filename="[ -~]+\.epub"/);
    },
    EPUBCHECK_MS,
  );
});

describe('HTML and text', () => {
  it('HTML is one sanitized document that loads nothing; text is readable with the chapters in order', async () => {
    const { id } = await story(author, { title: 'Two Formats', description: EVERY_CONSTRUCT }, [
      { title: 'First', content: EVERY_CONSTRUCT, authors_note: 'A note.' },
      { title: 'Second', content: 'The *end*.' },
    ]);
    const { bytes: html, response } = await file(reader, `/stories/${id}/download.html`, 'text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = html.toString('utf8');
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(page).toContain('<h1>Two Formats</h1>');
    expect(page).toContain('<a href="#chapter-1">First</a>');
    expect(page).toContain('<section class="chapter" id="chapter-2">');
    expect(page.indexOf('<h2>First</h2>')).toBeLessThan(page.indexOf('<h2>Second</h2>'));
    expect(page).toContain('A note.');
    // Self-contained and inert: no scripts, no images, frames or style sheets from elsewhere, no event handlers.
    const body = page.slice(page.indexOf('</head>'));
    const { elements, attributes } = markupOf(body);
    for (const element of ACTIVE_ELEMENTS) expect(elements).not.toContain(element);
    expect([...attributes].filter((name) => name.startsWith('on') || name === 'src')).toEqual([]);
    expect(markupOf(page.slice(0, page.indexOf('</head>'))).elements).toEqual(new Set(['html', 'head', 'meta', 'title', 'style']));
    expect(page).not.toMatch(/href="(?!https?:|mailto:|#chapter-)/);

    const { bytes: text } = await file(reader, `/stories/${id}/download.txt`, 'text/plain; charset=utf-8');
    const lines = text.toString('utf8').split('\n');
    expect(lines[0]).toBe('Two Formats');
    expect(lines[1]).toBe(`by ${author.name}`);
    expect(lines).toContain('  1. First');
    expect(lines).toContain('  2. Second');
    const rule = '='.repeat(72);
    expect(lines.indexOf('First')).toBeGreaterThan(lines.indexOf('  2. Second'));
    expect(lines[lines.indexOf('First') - 1]).toBe(rule);
    expect(lines.indexOf('Second')).toBeGreaterThan(lines.indexOf('First'));
    expect(lines).toContain('The *end*.');
    expect(lines).toContain("--- Author's note ---");
  });
});

describe('visibility', () => {
  it("another user's draft is 404; the author downloads it with read_stories (draft chapters marked), without it 403", async () => {
    const { id } = await story(author, { title: 'Secret Draft' }, [{ title: 'Hidden', content: 'Not yet.', published: false }], { publish: false });
    for (const format of ['epub', 'html', 'txt']) {
      const response = await download(reader, `/stories/${id}/download.${format}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/vnd.api+json');
    }
    const text = (await file(author, `/stories/${id}/download.txt`, 'text/plain; charset=utf-8')).bytes.toString('utf8');
    expect(text).toContain('Hidden (draft)');
    expect(text).toContain('Not yet.');
    const { id: blindId } = await story(blindAuthor, { title: 'Blind Draft' }, [{ title: 'Hidden', published: false }], { publish: false });
    const refused = await download(blindAuthor, `/stories/${blindId}/download.epub`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('insufficient_scope');
  });

  it('a published story leaves its unpublished chapters out for readers and keeps them for its author', async () => {
    const { id } = await story(author, { title: 'Partly Out' }, [
      { title: 'Out Now', content: 'Published words.' },
      { title: 'Coming Soon', content: 'Unpublished words.', published: false },
    ]);
    const forReader = (await file(reader, `/stories/${id}/download.html`, 'text/html; charset=utf-8')).bytes.toString('utf8');
    expect(forReader).toContain('Published words.');
    expect(forReader).not.toContain('Coming Soon');
    expect(forReader).not.toContain('Unpublished words.');
    const files = await validEpub(author, id);
    expect(chapterFiles(files).join('')).toContain('Coming Soon (draft)');
  });

  it('a story that does not exist is 404, a query parameter 400', async () => {
    expect((await download(reader, '/stories/999999999/download.epub')).status).toBe(404);
    const { id } = await story(author, { title: 'Plain' }, [{ title: 'One' }]);
    const response = await download(reader, `/stories/${id}/download.txt?format=pdf`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { source?: { parameter?: string } }[] }).errors[0]?.source?.parameter).toBe('format');
  });
});

describe('caching, links, limits and views', () => {
  it('answers 304 to its ETag until a chapter is added, which changes it', async () => {
    const { id } = await story(author, { title: 'Growing' }, [{ title: 'One' }]);
    const path = `/stories/${id}/download.epub`;
    const { response } = await file(reader, path, 'application/epub+zip');
    const etag = response.headers.get('etag') as string;
    const again = await download(reader, path, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // Each format has its own validator.
    const html = await file(reader, `/stories/${id}/download.html`, 'text/html; charset=utf-8');
    expect(html.response.headers.get('etag')).not.toBe(etag);

    await api(author, 'POST', `/stories/${id}/chapters`, { data: { type: 'chapter', attributes: { title: 'Two', content: 'More.', published: true } } });
    const changed = await download(reader, path, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    const files = new Map(zipEntries(Buffer.from(await changed.arrayBuffer())).map((entry) => [entry.name, entry.data.toString('utf8')]));
    expect(files.get('EPUB/nav.xhtml')).toContain('>Two<');
  });

  it('links to the downloads from the story, and counts them against the rate limit', async () => {
    const { id } = await story(author, { title: 'Linked' }, [{ title: 'One' }]);
    const resource = await api(reader, 'GET', `/stories/${id}`);
    for (const format of ['epub', 'html', 'txt']) expect(resource.links?.[`download_${format}`]).toBe(`${stack.origin}/api/v1/stories/${id}/download.${format}`);
    const first = await download(reader, `/stories/${id}/download.txt`);
    await first.arrayBuffer();
    const second = await download(reader, `/stories/${id}/download.txt`);
    await second.arrayBuffer();
    expect(Number(second.headers.get('ratelimit-remaining'))).toBe(Number(first.headers.get('ratelimit-remaining')) - 1);
  });

  it("counts one view per published chapter read, once per reader, never the author's own", async () => {
    const { id } = await story(author, { title: 'Viewed' }, [{ title: 'One' }, { title: 'Two' }, { title: 'Three', published: false }]);
    for (const user of [author, reader, reader]) await (await download(user, `/stories/${id}/download.txt`)).arrayBuffer();
    const views = await eventuallyValue(
      async () => (await api(reader, 'GET', `/stories/${id}`)).attributes['num_views'] as number,
      (count) => count >= 2,
      { timeoutMs: EVENT_WAIT_MS },
    );
    expect(views).toBe(2);
  });
});
