/** A chapter as the stories service knows it. */
export interface Chapter {
  id: string;
  storyId: string;
  title: string;
  /** Markdown; undefined unless the content was asked for. */
  content?: string;
  contentHtml?: string;
  authorsNote: string;
  authorsNoteHtml: string;
  /** 1-based, without gaps within its story. */
  chapterNumber: number;
  published: boolean;
  numWords: number;
  numViews: number;
  /** Set at the first publication and kept afterwards. */
  datePublished: Date | null;
  dateModified: Date;
  /** Whether the viewer marked it read (docs/api/stories.md, "Reading progress"); undefined when the viewer may not see reading progress. */
  read?: boolean;
}

/**
 * Most chapter text (content, authors_note and their HTML, in UTF-8 bytes) one page of a chapter list
 * carries when it includes content: 16 MiB, as a page of private messages (docs/api/stories.md).
 * A page stops before the chapter that would exceed it; the first chapter is always returned.
 */
export const CHAPTER_PAGE_TEXT_BUDGET_BYTES = 16 * 1024 * 1024;

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/**
 * The number of words in Markdown `text`: runs of letters and digits, with inner apostrophes and
 * hyphens (`don't`, `well-known`) counting as one word. Markdown punctuation is not a word.
 */
export function countWords(text: string): number {
  let count = 0;
  for (const _ of text.matchAll(WORD)) count++;
  return count;
}
