import type { Writable } from 'node:stream';
import type { Chapter } from '@inkwell/proto/stories';
import { storyFacts, writeOut } from './download-output.js';
import type { ChapterOutline, DownloadStory } from './story-download.source.js';

/** The rule above and below a chapter's heading. */
const RULE = '='.repeat(72);

/**
 * Writes `story` as plain UTF-8 text to `out` (docs/api/stories.md, "Downloads"): the title,
 * byline, short description, facts, tags, source URL and description; a numbered table of
 * contents; then each chapter under a heading between two rules of `=`, its text and its author's
 * note after a `--- Author's note ---` line. Texts are their Markdown as written (Markdown reads as
 * plain text), lines not re-wrapped, `\n` line ends, no byte order mark. Each chapter is written
 * with backpressure; `out` is not ended.
 */
export async function writeText(out: Writable, story: DownloadStory, outline: readonly ChapterOutline[], chapters: AsyncIterable<Chapter>, signal: AbortSignal): Promise<void> {
  const head = [story.title, `by ${story.authorName}`, ''];
  if (story.shortDescription !== '') head.push(story.shortDescription, '');
  head.push(storyFacts(story).join(' · '));
  if (story.tagNames.length > 0) head.push(`Tags: ${story.tagNames.join(', ')}`);
  head.push(`Source: ${story.url}`, '');
  if (story.description.trim() !== '') head.push(plain(story.description), '');
  head.push('Contents', '', ...outline.map((chapter, index) => `  ${index + 1}. ${heading(chapter)}`), '', '');
  await writeOut(out, head.join('\n'), signal);
  for await (const chapter of chapters) {
    const parts = [RULE, heading(chapter), RULE, '', plain(chapter.content ?? ''), ''];
    if (chapter.authorsNote.trim() !== '') parts.push("--- Author's note ---", '', plain(chapter.authorsNote), '');
    parts.push('', '');
    await writeOut(out, parts.join('\n'), signal);
  }
}

/** A Markdown text as plain text: `\n` line ends, no trailing blank lines, no characters that are not text. */
function plain(markdown: string): string {
  // eslint-disable-next-line no-control-regex -- control characters other than tab and newline are not text
  return markdown.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '').trimEnd();
}

function heading(chapter: { readonly title: string; readonly published: boolean }): string {
  return chapter.published ? chapter.title : `${chapter.title} (draft)`;
}
