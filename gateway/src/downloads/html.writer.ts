import type { Writable } from 'node:stream';
import type { Chapter } from '@inkwell/proto/stories';
import { storyFacts, writeOut } from './download-output.js';
import type { ChapterOutline, DownloadStory } from './story-download.source.js';
import { escapeXml, toXhtml } from './xhtml.js';

/**
 * What the HTML download lets a browser do when it is opened: nothing but its own inline styles
 * (no scripts, no fetches of any kind, no forms). Sent both as a header and in the document, so
 * it still holds once the file is saved.
 */
export const HTML_DOWNLOAD_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STYLE = `body { font-family: Georgia, serif; line-height: 1.6; max-width: 42em; margin: 2em auto; padding: 0 1em; color: #222; }
h1, h2, h3 { font-family: system-ui, sans-serif; line-height: 1.25; }
header, .facts, .tags { text-align: center; }
.facts, .tags { font-size: 0.9em; color: #555; }
nav ol { padding-left: 1.5em; }
section.chapter { border-top: 1px solid #ccc; margin-top: 3em; }
.authors-note { border-left: 3px solid #ccc; padding-left: 1em; margin-top: 2em; font-size: 0.95em; }
blockquote { margin: 1em 2em; font-style: italic; }
pre { white-space: pre-wrap; background: #f5f5f5; padding: 0.5em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; }`;

/**
 * Writes `story` as one self-contained HTML document to `out` (docs/api/stories.md,
 * "Downloads"): the title page (title, author, short description, facts, tags, description),
 * the table of contents from `outline` (links to the chapters in the document), then each
 * chapter as `chapters` yields it, with its author's note. The styles are inline; nothing refers
 * to another resource (images become links, see toXhtml) and a Content-Security-Policy meta
 * element forbids loading any. Every text comes from the sanitised HTML of its Markdown, cleaned
 * again by toXhtml. Each chapter is written to `out` with backpressure; `out` is not ended.
 */
export async function writeHtml(out: Writable, story: DownloadStory, outline: readonly ChapterOutline[], chapters: AsyncIterable<Chapter>, signal: AbortSignal): Promise<void> {
  const title = escapeXml(story.title);
  const head = [
    '<!DOCTYPE html>',
    '<html>',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeXml(HTML_DOWNLOAD_CSP)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    `<meta name="author" content="${escapeXml(story.authorName)}">`,
    `<style>\n${STYLE}\n</style>`,
    '</head>',
    '<body dir="auto">',
    '<header>',
    `<h1>${title}</h1>`,
    `<p>by ${escapeXml(story.authorName)}</p>`,
    ...(story.shortDescription === '' ? [] : [`<p><em>${escapeXml(story.shortDescription)}</em></p>`]),
    `<p class="facts">${storyFacts(story).map(escapeXml).join(' · ')}</p>`,
    ...(story.tagNames.length === 0 ? [] : [`<p class="tags">Tags: ${story.tagNames.map(escapeXml).join(', ')}</p>`]),
    `<p class="facts"><a href="${escapeXml(story.url)}" rel="nofollow noopener noreferrer">${escapeXml(story.url)}</a></p>`,
    '</header>',
  ];
  const description = toXhtml(story.descriptionHtml);
  if (description !== '') head.push(`<section class="description">${description}</section>`);
  head.push('<nav>', '<h2>Contents</h2>', '<ol>', ...outline.map((chapter, index) => `<li><a href="#chapter-${index + 1}">${escapeXml(heading(chapter))}</a></li>`), '</ol>', '</nav>', '');
  await writeOut(out, head.join('\n'), signal);
  // Anchors follow the outline, so the contents link to the right chapter; one not in the outline (added meanwhile) gets the next free number.
  const anchors = new Map(outline.map((chapter, index) => [chapter.id, index + 1]));
  let extra = outline.length;
  for await (const chapter of chapters) {
    const anchor = anchors.get(chapter.id) ?? ++extra;
    const parts = [`<section class="chapter" id="chapter-${anchor}">`, `<h2>${escapeXml(heading(chapter))}</h2>`, toXhtml(chapter.contentHtml ?? '')];
    const note = toXhtml(chapter.authorsNoteHtml);
    if (note !== '') parts.push(`<aside class="authors-note"><h3>Author's note</h3>${note}</aside>`);
    parts.push('</section>', '');
    await writeOut(out, parts.join('\n'), signal);
  }
  await writeOut(out, '</body>\n</html>\n', signal);
}

function heading(chapter: { readonly title: string; readonly published: boolean }): string {
  return chapter.published ? chapter.title : `${chapter.title} (draft)`;
}
