import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The examples of a guide page (docs/guide/*.md) and how the doc test runs them: every ```sh
 * block is an example, run in order in bash; a ```json or ```http block right after it (prose
 * between them is allowed) shows the answer the example prints, and the printed answer must have
 * its shape (see {@link shapeMismatches}). No other kind of code block may appear on a guide
 * page: every example there runs.
 */
export interface GuideExample {
  /** Line of the opening fence (1-based), for messages. */
  readonly line: number;
  /** The shell text, as a reader would paste it. */
  readonly script: string;
  readonly expected?: ExpectedAnswer;
}

/** What an example is shown to print: a JSON document, or an HTTP answer (status line, headers, optional JSON body). */
export type ExpectedAnswer =
  | { readonly kind: 'json'; readonly line: number; readonly body: unknown }
  | { readonly kind: 'http'; readonly line: number; readonly status: number; readonly headers: ReadonlyArray<readonly [string, string]>; readonly body?: unknown };

/** The fenced blocks of a Markdown text (``` fences only), with their language and first line. */
function fencedBlocks(markdown: string): Array<{ language: string; line: number; text: string }> {
  const blocks: Array<{ language: string; line: number; text: string }> = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```\s*(\S*)/.exec(lines[index] as string);
    if (open === null) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index] as string); index += 1) body.push(lines[index] as string);
    if (index === lines.length) throw new Error(`line ${start + 1}: the code block is never closed`);
    blocks.push({ language: open[1] ?? '', line: start + 1, text: body.join('\n') });
  }
  return blocks;
}

/** The examples of a guide page, in order. Throws on a block that is neither an example nor the answer of the one before it. */
export function guideExamples(markdown: string): GuideExample[] {
  const examples: Array<{ line: number; script: string; expected?: ExpectedAnswer }> = [];
  for (const block of fencedBlocks(markdown)) {
    if (block.language === 'sh') {
      examples.push({ line: block.line, script: block.text });
      continue;
    }
    const previous = examples.at(-1);
    if (block.language !== 'json' && block.language !== 'http') throw new Error(`line ${block.line}: a \`\`\`${block.language} block; a guide page has only \`\`\`sh examples and the \`\`\`json or \`\`\`http answers they print`);
    if (previous === undefined || previous.expected !== undefined) throw new Error(`line ${block.line}: an answer that follows no example`);
    previous.expected = block.language === 'json' ? { kind: 'json', line: block.line, body: parseJson(block.text, block.line) } : parseHttp(block.text, block.line);
  }
  return examples;
}

function parseJson(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`line ${line}: the answer is not JSON: ${(error as Error).message}`);
  }
}

/** `HTTP/1.1 201 Created`, header lines, then optionally a blank line and a JSON body (the form `curl -i` prints). */
function parseHttp(text: string, line: number): ExpectedAnswer {
  const [head, ...rest] = text.split(/\r?\n\r?\n/);
  const [statusLine = '', ...headerLines] = (head ?? '').split(/\r?\n/);
  const status = /^HTTP\/[\d.]+ (\d{3})\b/.exec(statusLine);
  if (status === null) throw new Error(`line ${line}: an HTTP answer starts with its status line, not "${statusLine}"`);
  const headers = headerLines.map((header): [string, string] => {
    const colon = header.indexOf(':');
    if (colon < 1) throw new Error(`line ${line}: "${header}" is no header`);
    return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()];
  });
  const bodyText = rest.join('\n\n').trim();
  return { kind: 'http', line, status: Number(status[1]), headers, ...(bodyText === '' ? {} : { body: parseJson(bodyText, line) }) };
}

const DIGITS = /^\d+$/;
const URL_WITH_ID = /^https?:\/\/[^\s]*\/\d+(\/|\?|$)/;
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Whether `actual` has the shape of a shown string: a text with `…` matches any text in its
 * place, and an id in the path of a URL (`…/stories/176`) any id; a number written as a string
 * (an id, a header's count) any such number; a date-time any date-time; any other text only
 * itself.
 */
function textMatches(shown: string, actual: string): boolean {
  if (shown.includes('…') || URL_WITH_ID.test(shown)) {
    const escape = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // An id in a URL's path (`/stories/176`) stands for any id.
    const ids = (part: string) => (/^https?:\/\//.test(shown) ? escape(part).replace(/\/\d+(?=\/|\?|$)/g, '/\\d+') : escape(part));
    const pattern = shown.split('…').map(ids).join('[\\s\\S]*');
    return new RegExp(`^${pattern}$`).test(actual);
  }
  if (DIGITS.test(shown)) return DIGITS.test(actual);
  if (DATE_TIME.test(shown)) return DATE_TIME.test(actual);
  return shown === actual;
}

/**
 * How `actual` differs from the shape of the answer a page shows (`shown`), as one line per
 * difference (none: it matches). Objects need every member shown (more are fine: pages shorten
 * documents); arrays need the items shown, in order, at their start; numbers any number;
 * strings as {@link textMatches}; `true`, `false` and `null` themselves.
 */
export function shapeMismatches(shown: unknown, actual: unknown, path = '$'): string[] {
  if (typeof shown === 'string') return typeof actual === 'string' && textMatches(shown, actual) ? [] : [`${path}: expected ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
  if (typeof shown === 'number') return typeof actual === 'number' ? [] : [`${path}: expected a number, got ${JSON.stringify(actual)}`];
  if (shown === null || typeof shown === 'boolean') return actual === shown ? [] : [`${path}: expected ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length < shown.length) return [`${path}: expected at least ${shown.length} items, got ${actual.length}`];
    return shown.flatMap((item, index) => shapeMismatches(item, actual[index], `${path}[${index}]`));
  }
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
  return Object.entries(shown as Record<string, unknown>).flatMap(([name, value]) => (name in actual ? shapeMismatches(value, (actual as Record<string, unknown>)[name], `${path}.${name}`) : [`${path}.${name}: missing`]));
}

/** How printed output differs from the answer shown (none: it matches). */
export function answerMismatches(expected: ExpectedAnswer, output: string): string[] {
  if (expected.kind === 'json') {
    let body: unknown;
    try {
      body = JSON.parse(output);
    } catch {
      return [`printed no JSON document: ${output.slice(0, 500)}`];
    }
    return shapeMismatches(expected.body, body);
  }
  const [head = '', ...rest] = output.replace(/^\s+/, '').split(/\r?\n\r?\n/);
  const [statusLine = '', ...headerLines] = head.split(/\r?\n/);
  const status = /^HTTP\/[\d.]+ (\d{3})\b/.exec(statusLine);
  if (status === null) return [`printed no HTTP answer: ${output.slice(0, 500)}`];
  const problems: string[] = [];
  if (Number(status[1]) !== expected.status) problems.push(`status ${status[1]}, expected ${expected.status}`);
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  for (const [name, value] of expected.headers) {
    const actual = headers.get(name.toLowerCase());
    if (actual === undefined) problems.push(`no ${name} header`);
    else if (!textMatches(value, actual)) problems.push(`${name}: ${actual}, expected ${value}`);
  }
  if (expected.body !== undefined) {
    const text = rest.join('\n\n').trim();
    try {
      problems.push(...shapeMismatches(expected.body, JSON.parse(text)));
    } catch {
      problems.push(`the body is no JSON document: ${text.slice(0, 500)}`);
    }
  }
  return problems;
}

/**
 * Variables the test gives a page instead of the reader: a value, or how to obtain it from the
 * variables set so far (a step a person does in a browser). An example's line assigning one of
 * them (`TOKEN=iwk_pat_…`) is run with the test's value instead.
 */
export type ProvidedVariables = Readonly<Record<string, string | ((variables: Readonly<Record<string, string>>) => Promise<string>)>>;

/** What running one example printed. */
export interface ExampleRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Every exported variable after the example (the next example starts with them). */
  readonly variables: Record<string, string>;
}

/** The example's script with every assignment of a provided variable given the provided value. */
export async function substituteProvided(script: string, provided: ProvidedVariables, variables: Readonly<Record<string, string>>): Promise<string> {
  const lines: string[] = [];
  for (const line of script.split('\n')) {
    const assignment = /^(\s*)(?:export\s+)?([A-Z_][A-Z0-9_]*)=/.exec(line);
    const source = assignment === null ? undefined : provided[assignment[2] as string];
    if (assignment === null || source === undefined) {
      lines.push(line);
      continue;
    }
    const value = typeof source === 'string' ? source : await source(variables);
    lines.push(`${assignment[1]}${assignment[2]}='${value.replaceAll("'", `'\\''`)}'`);
  }
  return lines.join('\n');
}

/**
 * Runs one example in bash (`set -euo pipefail`, every assignment exported, so that the next
 * example sees it as a reader's terminal would) in `cwd` with `variables` as its environment.
 */
export async function runExample(script: string, variables: Readonly<Record<string, string>>, cwd: string, timeoutMs = 90_000): Promise<ExampleRun> {
  const dir = await mkdtemp(join(tmpdir(), 'inkwell-guide-'));
  const envFile = join(dir, 'env');
  try {
    // The example's last status counts too (a final `check && echo ok` that fails does not stop bash under `set -e`).
    const wrapped = `set -euo pipefail\nset -a\n${script}\nguide_example_status=$?\nenv -0 > ${JSON.stringify(envFile)}\nexit $guide_example_status\n`;
    const { exitCode, stdout, stderr } = await new Promise<{ exitCode: number; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-c', wrapped], { cwd, env: variables, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, out, err) => {
        resolve({ exitCode: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout: out, stderr: err });
      });
    });
    const after = exitCode === 0 ? await readFile(envFile, 'utf8') : '';
    const next: Record<string, string> = {};
    for (const entry of after.split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) next[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return { exitCode, stdout, stderr, variables: next };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
