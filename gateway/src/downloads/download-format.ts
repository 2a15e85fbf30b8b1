/** The formats of a whole-story download (docs/api/stories.md, "Downloads"), named by their file extension. */
export type DownloadFormat = 'epub' | 'html' | 'txt';

/** Every format, in the order the API document and `links` list them. */
export const DOWNLOAD_FORMATS: readonly DownloadFormat[] = ['epub', 'html', 'txt'];

/** The `Content-Type` of each format. */
export const DOWNLOAD_MEDIA_TYPES: Readonly<Record<DownloadFormat, string>> = {
  epub: 'application/epub+zip',
  html: 'text/html; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

/** The path of a story's download, relative to `/api/v1`. */
export function downloadPath(storyId: string, format: DownloadFormat): string {
  return `/stories/${storyId}/download.${format}`;
}

/** The most characters of a file name's stem, so that names stay usable on every file system. */
const STEM_MAX = 100;

/**
 * The `Content-Disposition` of a download (RFC 6266): `attachment`, an ASCII `filename` for old
 * clients (the title without diacritics, every other character outside `A-Z a-z 0-9 space . _ -`
 * an underscore; `story-<id>` when no letter or digit is left) and `filename*` with the title as written
 * (UTF-8, percent-encoded, RFC 8187). Path separators, control characters and leading dots never
 * reach either name.
 */
export function contentDisposition(title: string, storyId: string, format: DownloadFormat): string {
  const stem = safeStem(title) || `story-${storyId}`;
  const ascii = /[A-Za-z0-9]/.test(asciiStem(stem)) ? asciiStem(stem) : `story-${storyId}`;
  return `attachment; filename="${ascii}.${format}"; filename*=UTF-8''${encodeRfc8187(`${stem}.${format}`)}`;
}

/** The title as a file name's stem: controls and characters file systems refuse become spaces; trimmed, no leading dots. */
function safeStem(title: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const cleaned = title.normalize('NFC').replace(/[\u0000-\u001F\u007F-\u009F/\\:*?"<>|]+/g, ' ').replace(/\s+/g, ' ').replace(/^[.\s]+/, '').trim();
  return [...cleaned].slice(0, STEM_MAX).join('').trim();
}

function asciiStem(stem: string): string {
  return stem
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .replace(/[^A-Za-z0-9 ._-]/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[.\s]+/, '')
    .trim();
}

/** RFC 8187 value characters: attr-char stays, every other byte of the UTF-8 is `%XX`. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}
