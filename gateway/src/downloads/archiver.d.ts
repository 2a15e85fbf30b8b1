/**
 * The part of archiver 8 (which ships no types) that the EPUB writer uses: a zip archive that is
 * a readable stream of its bytes, fed entry by entry.
 */
declare module 'archiver' {
  import type { Transform } from 'node:stream';

  /** Options of one entry. */
  export interface EntryData {
    readonly name: string;
    /** Stored without compression (the EPUB's `mimetype` must be). */
    readonly store?: boolean;
    readonly date?: Date;
  }

  /** A zip archive; emits `entry` when an appended entry has been written into the archive. */
  export class ZipArchive extends Transform {
    constructor(options?: { readonly zlib?: { readonly level?: number }; readonly highWaterMark?: number });
    append(source: Buffer | string, data: EntryData): this;
    /** Writes the central directory; resolves when the archive is complete. */
    finalize(): Promise<void>;
    /** Stops the archive at once, discarding what is queued. */
    abort(): this;
  }
}
