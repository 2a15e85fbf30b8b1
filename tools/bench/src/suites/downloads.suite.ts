import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { createTestUser, type RunningSystem } from '@inkwell/testing';
import { runLoad, type BenchRequest } from '../load.runner.js';
import { migrateSchemas } from '../seed.runner.js';
import type { BenchContext, Suite } from '../suite.js';

/** The story downloaded: 100 chapters of 5,000 words (500,000 words) at scale 1. */
const CHAPTERS = 100;
const WORDS_PER_CHAPTER = 5_000;
/** Requests in flight, and measured and warm-up seconds (docs/benchmarks.md, "downloads"). */
const IN_FLIGHT = 4;
const MEASURE_SECONDS = 20;
const WARMUP_SECONDS = 3;
/** Targets (issue 24): the EPUB p95 ≤ 1 s at 4 in flight, each process's memory growth ≤ 50 MB. */
const P95_TARGET_MS = 1_000;
const RSS_GROWTH_TARGET_MB = 50;
/** The processes whose memory is watched: the one that writes the file and the one that reads the chapters. */
const WATCHED = ['gateway', 'stories'] as const;

/** Words of ordinary length, in sentences and paragraphs, so that the text compresses like prose. */
const VOCABULARY = 'the of and a to in was he that it his her with as had for she on at by but not they from which you be this have were one all we there an their been would when if so what out up them into more some then could time no my him only over these two may first like other than little did after very before any our made about most'.split(' ');

/** A chapter of `words` words of Markdown: paragraphs of about 100 words, now and then *emphasis*. */
function chapterText(words: number, seed: number): string {
  const paragraphs: string[] = [];
  let sentence: string[] = [];
  let paragraph: string[] = [];
  for (let i = 0; i < words; i++) {
    const word = VOCABULARY[(i * 31 + seed * 17 + ((i * i) % 7)) % VOCABULARY.length] as string;
    sentence.push(i % 97 === 0 ? `*${word}*` : word);
    if (sentence.length === 12 || i === words - 1) {
      const text = sentence.join(' ');
      paragraph.push(`${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
      sentence = [];
    }
    if (paragraph.length === 8 || i === words - 1) {
      paragraphs.push(paragraph.join(' '));
      paragraph = [];
    }
  }
  return paragraphs.join('\n\n');
}

/** A JSON:API write as `token`; the new or changed resource's id. */
async function write(apiUrl: string, token: string, method: string, path: string, body: unknown): Promise<string> {
  const response = await fetch(`${apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/** Resident memory of process `name` of the system, in MB (Linux /proc). */
async function rssMb(system: RunningSystem, name: string): Promise<number> {
  const pid = system.processes.find((candidate) => candidate.name === name)?.child.pid;
  if (pid === undefined) throw new Error(`no process ${name}`);
  const kb = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
}

const mb = (n: number) => `${n} MB`;

/**
 * Whole-story downloads (issue 24, docs/api/stories.md, "Downloads"): the EPUB of a published
 * story of 100 chapters and 500,000 words (at `--scale 1`; words per chapter scale down with it),
 * written through the API by a fresh author, downloaded by IN_FLIGHT readers at once (each a
 * different reader, so views are counted as for real readers: the first pass per reader counts,
 * then the 24-hour window holds), with the resident memory of the gateway and the stories service
 * before the warm-up and after the measured run. HTML and text rows follow for comparison.
 */
export const downloadsSuite: Suite = {
  name: 'downloads',
  dataSet: `one published story of ${CHAPTERS} chapters and ${(CHAPTERS * WORDS_PER_CHAPTER).toLocaleString('en')} words, written through the API`,

  prepare(databaseUrl) {
    // The story is written through the API when the suite runs (its chapters need the author's token).
    migrateSchemas(databaseUrl);
    return Promise.resolve();
  },

  async report(context: BenchContext) {
    const apiUrl = context.system.apiUrl;
    const words = Math.max(50, Math.round(WORDS_PER_CHAPTER * context.scale));
    const author = await createTestUser(context.system, { scopes: ['write_stories', 'read_stories'] });
    const readers = await Promise.all(Array.from({ length: IN_FLIGHT }, () => createTestUser(context.system)));
    process.stderr.write(`    writing a story of ${CHAPTERS} chapters of ${words} words\n`);
    const storyId = await write(apiUrl, author.token, 'POST', '/stories', { data: { type: 'story', attributes: { title: 'The Long Benchmark', short_description: 'A story to download.', description: chapterText(200, 0) } } });
    for (let i = 1; i <= CHAPTERS; i++) {
      await write(apiUrl, author.token, 'POST', `/stories/${storyId}/chapters`, { data: { type: 'chapter', attributes: { title: `Chapter ${i}`, content: chapterText(words, i), authors_note: i % 10 === 0 ? 'Thank you for reading.' : '', published: true } } });
    }
    await write(apiUrl, author.token, 'PATCH', `/stories/${storyId}`, { data: { type: 'story', id: storyId, attributes: { published: true } } });

    const formats = ['epub', 'html', 'txt'] as const;
    // Every format once at full load before any memory is read, so that the growth measured is what
    // downloads keep, not the processes' first heap growth and compiled code.
    process.stderr.write('==> downloads: warming up every format\n');
    for (const format of formats) {
      const requests = readers.map((reader) => ({ path: `/stories/${storyId}/download.${format}`, token: reader.token }));
      await runLoad({ apiUrl, requests, concurrency: IN_FLIGHT, durationMs: WARMUP_SECONDS * 1000, warmupMs: WARMUP_SECONDS * 1000 });
    }
    const rows: string[] = [];
    for (const format of formats) {
      process.stderr.write(`==> downloads: ${format}\n`);
      const requests: BenchRequest[] = readers.map((reader) => ({ path: `/stories/${storyId}/download.${format}`, token: reader.token }));
      const before = await Promise.all(WATCHED.map((name) => rssMb(context.system, name)));
      const result = await runLoad({ apiUrl, requests, concurrency: IN_FLIGHT, durationMs: MEASURE_SECONDS * 1000, warmupMs: WARMUP_SECONDS * 1000 });
      const after = await Promise.all(WATCHED.map((name) => rssMb(context.system, name)));
      const growth = after.map((value, i) => value - (before[i] as number));
      const met = result.p95Ms <= P95_TARGET_MS && growth.every((value) => value <= RSS_GROWTH_TARGET_MB) && result.errors === 0;
      const memory = WATCHED.map((name, i) => `${name} ${mb(before[i] as number)} → ${mb(after[i] as number)} (${growth[i]! >= 0 ? '+' : ''}${growth[i]})`).join('; ');
      const target = format === 'epub' ? `p95 ≤ ${P95_TARGET_MS}, growth ≤ ${RSS_GROWTH_TARGET_MB} MB: ${met ? 'met' : '**MISSED**'}` : 'informational';
      rows.push(`| ${format} | ${result.requests} | ${result.p50Ms} | ${result.p95Ms} | ${result.p99Ms} | ${result.requestsPerSecond} | ${result.errors === 0 ? 0 : `${result.errors} (${result.firstError ?? ''})`} | ${memory} | ${Math.round((loadavg()[0] as number) * 10) / 10} | ${target} |`);
    }
    return [
      `Date ${new Date().toISOString().slice(0, 10)}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}); the load generator, gateway, services and stores all on it. ${IN_FLIGHT} downloads in flight (one per reader), ${MEASURE_SECONDS} s measured after ${WARMUP_SECONDS} s of warm-up; latency is until the last byte. Memory: resident set of each process before the format's warm-up and after its run, once every format has run for a while.`,
      '',
      '| format | downloads | p50 ms | p95 ms | p99 ms | req/s | errors | memory (RSS) | load avg | target |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ];
  },
};
