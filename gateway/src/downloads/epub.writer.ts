import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { ZipArchive } from 'archiver';
import type { Chapter } from '@inkwell/proto/stories';
import { firstEvent, storyFacts } from './download-output.js';
import type { DownloadStory } from './story-download.source.js';
import { escapeXml, toXhtml } from './xhtml.js';

/** A chapter as the package document and the navigation list it: its file, id and title. */
interface WrittenChapter {
  readonly file: string;
  readonly itemId: string;
  readonly title: string;
}

/** What the archive may hold for a client that has not read it yet before the next chapter is read. */
const ARCHIVE_BUFFER_BYTES = 64 * 1024;

const STYLE = `body { font-family: serif; line-height: 1.5; margin: 0 5%; }
h1, h2, h3 { font-family: sans-serif; line-height: 1.2; }
.byline, .facts, .tags { text-align: center; }
.facts, .tags { font-size: 0.9em; }
.authors-note { border-top: 1px solid #999; margin-top: 2em; font-size: 0.95em; }
blockquote { margin: 1em 2em; font-style: italic; }
pre { white-space: pre-wrap; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: 0.2em 0.5em; }
`;

const CONTAINER = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
`;

/**
 * Writes `story` as an EPUB 3 to `out` (docs/api/stories.md, "Downloads"), chapter by chapter as
 * `chapters` yields them: `mimetype` first and stored (OCF), then the container, a style sheet,
 * the title page, one XHTML file per chapter (its title, text and author's note), and last the
 * navigation document and the package document, which list the chapters written. Each entry is
 * awaited until the archive has passed it on, and the archive is piped to `out`, so the archive
 * holds about one chapter at a time; `out` is not ended. Every entry carries the story's
 * `date_modified`, so the same version of a story gives the same bytes. On `signal` the archive
 * is abandoned and the promise rejects.
 */
export async function writeEpub(out: Writable, story: DownloadStory, chapters: AsyncIterable<Chapter>, signal: AbortSignal): Promise<void> {
  const zip = new ZipArchive({ zlib: { level: 6 } });
  // An error after the last wait (e.g. while aborting) must not go unheard: the waits below reject with it as it happens.
  zip.on('error', () => undefined);
  const stop = () => zip.abort();
  signal.addEventListener('abort', stop, { once: true });
  zip.pipe(out, { end: false });
  try {
    const add = async (name: string, text: string, store = false) => {
      signal.throwIfAborted();
      const entered = once(zip, 'entry', { signal });
      zip.append(Buffer.from(text, 'utf8'), { name, store, date: story.dateModified });
      await entered;
      // The archive accepts entries faster than a slow client reads it: wait until what it holds is taken.
      while (zip.readableLength > ARCHIVE_BUFFER_BYTES) await firstEvent(signal, [out, 'drain'], [zip, 'data']);
    };
    await add('mimetype', 'application/epub+zip', true);
    await add('META-INF/container.xml', CONTAINER);
    await add('EPUB/style.css', STYLE);
    await add('EPUB/title.xhtml', titlePage(story));
    const written: WrittenChapter[] = [];
    for await (const chapter of chapters) {
      const number = written.length + 1;
      const entry = { file: `chapter-${number}.xhtml`, itemId: `chapter-${number}`, title: chapterHeading(chapter) };
      await add(`EPUB/${entry.file}`, chapterPage(entry.title, chapter));
      written.push(entry);
    }
    await add('EPUB/nav.xhtml', navigation(story, written));
    await add('EPUB/package.opf', packageDocument(story, written));
    const ended = once(zip, 'end', { signal });
    await zip.finalize();
    await ended;
  } finally {
    signal.removeEventListener('abort', stop);
    zip.unpipe(out);
  }
}

/** A chapter's heading: its title, marked when it is a draft (only its author downloads those). */
function chapterHeading(chapter: Chapter): string {
  return chapter.published ? chapter.title : `${chapter.title} (draft)`;
}

function xhtmlPage(title: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head>
<meta charset="UTF-8"/>
<title>${escapeXml(title)}</title>
<link rel="stylesheet" type="text/css" href="style.css"/>
</head>
<body dir="auto">
${body}
</body>
</html>
`;
}

function titlePage(story: DownloadStory): string {
  const parts = [`<section epub:type="titlepage">`, `<h1>${escapeXml(story.title)}</h1>`, `<p class="byline">by ${escapeXml(story.authorName)}</p>`];
  if (story.shortDescription !== '') parts.push(`<p class="byline"><em>${escapeXml(story.shortDescription)}</em></p>`);
  parts.push(`<p class="facts">${storyFacts(story).map(escapeXml).join(' · ')}</p>`);
  if (story.tagNames.length > 0) parts.push(`<p class="tags">Tags: ${story.tagNames.map(escapeXml).join(', ')}</p>`);
  const description = toXhtml(story.descriptionHtml);
  if (description !== '') parts.push(`<div class="description">${description}</div>`);
  parts.push(`<p class="facts"><a href="${escapeXml(story.url)}">${escapeXml(story.url)}</a></p>`, '</section>');
  return xhtmlPage(story.title, parts.join('\n'));
}

function chapterPage(heading: string, chapter: Chapter): string {
  const parts = [`<section epub:type="chapter">`, `<h2>${escapeXml(heading)}</h2>`, toXhtml(chapter.contentHtml ?? '')];
  const note = toXhtml(chapter.authorsNoteHtml);
  if (note !== '') parts.push(`<section class="authors-note"><h3>Author's note</h3>${note}</section>`);
  parts.push('</section>');
  return xhtmlPage(heading, parts.join('\n'));
}

function navigation(story: DownloadStory, chapters: readonly WrittenChapter[]): string {
  const items = [`<li><a href="title.xhtml">${escapeXml(story.title)}</a></li>`, ...chapters.map((chapter) => `<li><a href="${chapter.file}">${escapeXml(chapter.title)}</a></li>`)];
  return xhtmlPage('Contents', `<nav epub:type="toc" id="toc">\n<h1>Contents</h1>\n<ol>\n${items.join('\n')}\n</ol>\n</nav>`);
}

/** `2026-11-26T10:00:00Z`: the form dcterms:modified requires (whole seconds, UTC). */
function epubDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function packageDocument(story: DownloadStory, chapters: readonly WrittenChapter[]): string {
  const metadata = [
    `<dc:identifier id="story-id">${escapeXml(story.url)}</dc:identifier>`,
    `<dc:title>${escapeXml(story.title)}</dc:title>`,
    // Inkwell does not know a story's language: "und" (undetermined, BCP 47) rather than a guess.
    '<dc:language>und</dc:language>',
    `<dc:creator>${escapeXml(story.authorName)}</dc:creator>`,
    '<dc:publisher>Inkwell</dc:publisher>',
    ...(story.shortDescription === '' ? [] : [`<dc:description>${escapeXml(story.shortDescription)}</dc:description>`]),
    ...story.tagNames.map((name) => `<dc:subject>${escapeXml(name)}</dc:subject>`),
    ...(story.datePublished === undefined ? [] : [`<dc:date>${epubDate(story.datePublished)}</dc:date>`]),
    `<meta property="dcterms:modified">${epubDate(story.dateModified)}</meta>`,
  ];
  const manifest = [
    '<item id="style" href="style.css" media-type="text/css"/>',
    '<item id="title-page" href="title.xhtml" media-type="application/xhtml+xml"/>',
    '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
    ...chapters.map((chapter) => `<item id="${chapter.itemId}" href="${chapter.file}" media-type="application/xhtml+xml"/>`),
  ];
  const spine = ['<itemref idref="title-page"/>', '<itemref idref="nav"/>', ...chapters.map((chapter) => `<itemref idref="${chapter.itemId}"/>`)];
  return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="story-id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
${metadata.join('\n')}
</metadata>
<manifest>
${manifest.join('\n')}
</manifest>
<spine>
${spine.join('\n')}
</spine>
</package>
`;
}
