import type { Writable } from 'node:stream';
import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { StoriesService } from '@inkwell/proto/stories';
import type { UsersService } from '@inkwell/proto/users';
import { contentDisposition, DOWNLOAD_FORMATS, DOWNLOAD_MEDIA_TYPES, type DownloadFormat } from '../downloads/download-format.js';
import { writeEpub } from '../downloads/epub.writer.js';
import { HTML_DOWNLOAD_CSP, writeHtml } from '../downloads/html.writer.js';
import { chapterOutline, chaptersWithText, startDownload, type DownloadCallOptions, type DownloadStory } from '../downloads/story-download.source.js';
import { writeText } from '../downloads/text.writer.js';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineRoute, type ApiRequest, type ApiResponse, type RouteDefinition } from '../routing/route.types.js';

/** What the download routes need: the stories and users clients (as the caller) and the link builder. */
export interface DownloadsRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly users: GrpcClient<typeof UsersService>;
  readonly links: ApiLinks;
}

/**
 * The most time writing one file may take, from its first backend call for chapters to its last
 * byte (docs/api/stories.md, "Downloads"): past it the backend calls are cancelled and the
 * connection is cut.
 */
export const DOWNLOAD_DEADLINE_MS = 120_000;

const SUMMARIES: Readonly<Record<DownloadFormat, string>> = {
  epub: 'The whole story as an EPUB 3 book (your own drafts too with read_stories).',
  html: 'The whole story as one self-contained HTML document (your own drafts too with read_stories).',
  txt: 'The whole story as plain UTF-8 text (your own drafts too with read_stories).',
};

/**
 * `GET /stories/:id/download.epub`, `.html` and `.txt` (docs/api/stories.md, "Downloads"): the
 * chapters the caller may see, in order, with a title page, the table of contents and the
 * authors' notes, streamed as they are read (ten chapters per backend call). Visibility is the
 * service's, as for `GET /stories/:id` and its chapters. The answer has a strong `ETag` derived
 * from the story's version, so `If-None-Match` is answered `304` after reading the story only.
 * No query parameters (any is `400 invalid_parameter`).
 */
export function downloadsRoutes(deps: DownloadsRoutesDeps): RouteDefinition[] {
  return DOWNLOAD_FORMATS.map((format) =>
    defineRoute({
      method: 'GET',
      path: `/stories/:id/download.${format}`,
      doc: { summary: SUMMARIES[format], download: { mediaType: DOWNLOAD_MEDIA_TYPES[format] }, errors: ['insufficient_scope', 'invalid_parameter'] },
      handler: (request) => download(deps, format, request),
    }),
  );
}

async function download(deps: DownloadsRoutesDeps, format: DownloadFormat, request: ApiRequest<'id'>): Promise<ApiResponse> {
  for (const name of request.query.keys()) throw AppError.badParameter(name, 'A download takes no query parameters.');
  const { caller } = request;
  const { story, etag } = await startDownload(deps, deps.links, request.params.id, format, { caller, signal: request.signal ?? new AbortController().signal });
  const headers: Record<string, string> = { 'Content-Disposition': contentDisposition(story.title, story.id, format), 'X-Content-Type-Options': 'nosniff' };
  if (format === 'html') headers['Content-Security-Policy'] = HTML_DOWNLOAD_CSP;
  return {
    status: 200,
    headers,
    stream: {
      contentType: DOWNLOAD_MEDIA_TYPES[format],
      etag,
      write: (out, clientSignal) => withDeadline(clientSignal, (signal) => writeStory(deps.stories, format, story, out, { caller, signal })),
    },
  };
}

/**
 * Runs `work` with a signal that aborts when `clientSignal` does or DOWNLOAD_DEADLINE_MS have
 * passed, whichever comes first; the timer and the listener are gone when `work` settles, so a
 * finished download keeps nothing alive.
 */
async function withDeadline(clientSignal: AbortSignal, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const onClientGone = () => controller.abort(clientSignal.reason);
  clientSignal.addEventListener('abort', onClientGone, { once: true });
  if (clientSignal.aborted) onClientGone();
  const timer = setTimeout(() => controller.abort(new Error(`the download took more than ${DOWNLOAD_DEADLINE_MS} ms`)), DOWNLOAD_DEADLINE_MS);
  try {
    await work(controller.signal);
  } finally {
    clearTimeout(timer);
    clientSignal.removeEventListener('abort', onClientGone);
  }
}

/** Writes the file: EPUB in one pass (its contents are written last); HTML and text read the table of contents first. */
async function writeStory(stories: GrpcClient<typeof StoriesService>, format: DownloadFormat, story: DownloadStory, out: Writable, options: DownloadCallOptions): Promise<void> {
  const chapters = chaptersWithText(stories, story.id, options);
  if (format === 'epub') return writeEpub(out, story, chapters, options.signal);
  const outline = await chapterOutline(stories, story.id, options);
  if (format === 'html') return writeHtml(out, story, outline, chapters, options.signal);
  return writeText(out, story, outline, chapters, options.signal);
}
