import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository reads on its own (docs/api.md): code cites the project's API pages
 * (`docs/api/<page>.md, "<section heading>"`), never documents outside the repository. This test
 * reads every tracked source file and fails on a citation of an outside document, on a cited
 * docs/api page that does not exist, and on a cited section that is no heading of its page.
 */

const ROOT = resolve(import.meta.dirname, '../../..');

/** The tracked files whose comments and strings are checked. */
const SOURCE_FILE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|sql|proto|sh|yaml|yml|java|json)$/;

/** Never checked: generated, vendored or not ours to word. */
const SKIPPED = new Set(['package-lock.json']);

/**
 * This file itself: its fixtures and the tolerated migration lines must spell what the checks look
 * for, so it is left out of the scan (its own self-tests below prove the checks fire).
 */
const THIS_FILE = relative(ROOT, import.meta.filename).split(sep).join('/');

/**
 * Citations of outside documents. The words are assembled here so that this file does not match
 * its own patterns: the contract (by its file name, or its name followed by a section sign), the original specification
 * file, and any path into the sibling `shared` folder.
 */
const OUTSIDE_CITATIONS: readonly RegExp[] = [
  new RegExp(['contract', '(?:\\.md)?', ' ?', '§'].join(''), 'i'),
  new RegExp(['contract', '\\.md'].join(''), 'i'),
  new RegExp(['story-api', '\\.md'].join(''), 'i'),
  new RegExp(['\\.\\./', 'shared'].join('')),
];

/** How those lines cite the contract's sections, assembled so this file does not match its own patterns. */
const CONTRACT_SECTION = ['contract', '.md §'].join('');

/**
 * Migrations already applied somewhere are immutable: the migrator compares each applied
 * migration's checksum with its file and refuses to start on a difference, so their opening
 * comments keep the wording they were applied with. Only these exact lines are tolerated.
 */
const APPLIED_MIGRATION_LINES: ReadonlyMap<string, string> = new Map([
  ['services/stories/migrations/0001_stories.sql', `-- Stories, their chapters and the tag catalogue (${CONTRACT_SECTION}3). Counts that readers drive`],
  ['services/stories/migrations/0004_ratings_comments.sql', `-- Votes and comments (${CONTRACT_SECTION}4). The counts on stories (num_likes, num_dislikes, rating,`],
  ['services/users/migrations/0001_users.sql', `-- Accounts and public profiles. Counts are maintained from events (${CONTRACT_SECTION}8).`],
]);

/** `docs/api.md` or `docs/api/<page>.md`, optionally followed by `, "<section>"` or ` "<section>"`. */
const DOC_CITATION = /docs\/api(?:\/[A-Za-z0-9_-]+)?\.md(?:,? ?\(?"([^"]{1,200})")?/g;

/** One tracked source file: its path from the repository root and its text. */
interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** One problem found, as `path:line: what`. */
type Finding = string;

function trackedSourceFiles(): SourceFile[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return listing
    .split('\0')
    .filter((path) => SOURCE_FILE.test(path) && path !== THIS_FILE && !SKIPPED.has(path.split('/').pop() ?? '') && existsSync(join(ROOT, path)))
    .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

/** A heading or cited name as compared: no backticks, no `*(decision)*` marks, single spaces. */
function normaliseSection(name: string): string {
  return name
    .replace(/`/g, '')
    .replace(/\*\(decisions?\)\*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A quoted section name that wraps over comment lines, joined back into one line. */
function unwrapCommentText(text: string): string {
  return text.replace(/\s*\n\s*(?:\*|\/\/|--|#)?\s*/g, ' ');
}

const headingCache = new Map<string, readonly string[] | undefined>();

/** The `#` headings of a docs page, normalised; undefined when the page does not exist. */
function headingsOf(docPath: string): readonly string[] | undefined {
  if (!headingCache.has(docPath)) {
    const file = join(ROOT, docPath);
    headingCache.set(
      docPath,
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((line) => /^#{1,6} /.test(line))
            .map((line) => normaliseSection(line.replace(/^#{1,6} /, '')))
        : undefined,
    );
  }
  return headingCache.get(docPath);
}

/**
 * Whether `cited` names a heading: the whole heading, or its leading words (a citation may shorten
 * "Cursor pagination (every list except private messages)" to "Cursor pagination").
 */
function namesHeading(cited: string, headings: readonly string[]): boolean {
  const name = normaliseSection(cited);
  return headings.some((heading) => heading === name || (heading.startsWith(name) && /^[\s,:(;.]/.test(heading.slice(name.length))));
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function outsideCitations(file: SourceFile): Finding[] {
  const allowed = APPLIED_MIGRATION_LINES.get(file.path);
  return file.text.split('\n').flatMap((line, index) =>
    line !== allowed && OUTSIDE_CITATIONS.some((pattern) => pattern.test(line)) ? [`${file.path}:${index + 1}: cites a document outside the repository: ${line.trim()}`] : [],
  );
}

function brokenDocCitations(file: SourceFile): Finding[] {
  const findings: Finding[] = [];
  for (const match of file.text.matchAll(DOC_CITATION)) {
    const docPath = match[0].replace(/\.md.*$/s, '.md');
    const headings = headingsOf(docPath);
    const where = `${file.path}:${lineOf(file.text, match.index)}`;
    if (headings === undefined) {
      findings.push(`${where}: cites ${docPath}, which does not exist`);
    } else if (match[1] !== undefined && !namesHeading(unwrapCommentText(match[1]), headings)) {
      findings.push(`${where}: cites section "${unwrapCommentText(match[1])}" of ${docPath}, which has no such heading`);
    }
  }
  return findings;
}

describe('citations in the source (docs/api.md)', () => {
  const files = trackedSourceFiles();

  it('reads the tracked source files of every kind it checks', () => {
    const paths = files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['gateway/src/jsonapi/error.mapping.ts', 'proto/inkwell/users/v1/users.proto', 'services/users/migrations/0001_users.sql', 'package.json']));
    expect(paths).not.toContain('package-lock.json');
  });

  it('cite no document outside the repository', () => {
    expect(files.flatMap(outsideCitations)).toEqual([]);
  });

  it('cite only docs/api pages and section headings that exist', () => {
    expect(files.flatMap(brokenDocCitations)).toEqual([]);
  });
});

describe('the citation checks themselves', () => {
  const file = (path: string, text: string): SourceFile => ({ path, text });

  it('find each form of an outside citation', () => {
    const samples = [['contract', ' §5'], ['contract', '.md §10'], ['contract', '.md'], ['story-api', '.md'], ['../', 'shared/style.md']].map((parts) => `// see ${parts.join('')}`);
    expect(samples.map((text) => outsideCitations(file('a.ts', text)).length)).toEqual([1, 1, 1, 1, 1]);
    expect(outsideCitations(file('a.ts', '// a contract between two services'))).toEqual([]);
  });

  it('tolerate an applied migration only on its recorded line', () => {
    const [path, line] = [...APPLIED_MIGRATION_LINES][0] ?? ['', ''];
    expect(outsideCitations(file(path, line))).toEqual([]);
    expect(outsideCitations(file(path, `${line}\n-- (${CONTRACT_SECTION}9)`))).toHaveLength(1);
  });

  it('accept a cited heading, in full, shortened to its leading words, or wrapped over comment lines', () => {
    const text = [
      '/** (docs/api/lists.md, "Cursor pagination (every list except private messages)") */',
      '/** (docs/api/lists.md, "Cursor pagination") and docs/api/lists.md "Sparse fieldsets" */',
      '/** (docs/api/foundation.md, "Stores and least\n * privilege"); docs/api.md */',
    ].join('\n');
    expect(brokenDocCitations(file('a.ts', text))).toEqual([]);
  });

  it('reject a missing page, a missing section and a word cut in half', () => {
    const text = ['// docs/api/nowhere.md', '// (docs/api/lists.md, "Paging")', '// (docs/api/lists.md, "Cursor pag")'].join('\n');
    expect(brokenDocCitations(file('a.ts', text))).toEqual([
      'a.ts:1: cites docs/api/nowhere.md, which does not exist',
      'a.ts:2: cites section "Paging" of docs/api/lists.md, which has no such heading',
      'a.ts:3: cites section "Cursor pag" of docs/api/lists.md, which has no such heading',
    ]);
  });
});
