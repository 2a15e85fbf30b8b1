import { inflateRawSync } from 'node:zlib';

/** One file of a zip archive as its central directory and local header describe it. */
export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  /** Length of the local header's extra field. */
  readonly localExtraLength: number;
  /** Where its local header starts. */
  readonly offset: number;
  readonly data: Buffer;
}

/**
 * The entries of the zip archive `zip`, in the order of its central directory (which is the order
 * they were written in): enough of PKWARE's APPNOTE to check an EPUB's container (no ZIP64, no
 * encryption).
 */
export function zipEntries(zip: Buffer): ZipEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end === -1) throw new Error('no end of central directory record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`no central directory header at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const offset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    const localExtraLength = zip.readUInt16LE(offset + 28);
    const start = offset + 30 + zip.readUInt16LE(offset + 26) + localExtraLength;
    const raw = zip.subarray(start, start + compressedSize);
    entries.push({ name, method, localExtraLength, offset, data: method === 0 ? raw : inflateRawSync(raw) });
  }
  return entries;
}
