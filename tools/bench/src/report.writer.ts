import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const HEADER = `# Benchmarks

Written by \`npm run bench -- --write docs/benchmarks.md\` (tools/bench): each suite replaces its own
section, between its markers, and leaves the others alone.
`;

/**
 * Replaces the section of `suite` in the Markdown file at `path` with `lines` (between the markers
 * `<!-- bench:<suite> -->` and `<!-- /bench:<suite> -->`), or appends it when the file has none;
 * creates the file with a short header when it does not exist.
 */
export function writeSection(path: string, suite: string, lines: readonly string[]): void {
  const start = `<!-- bench:${suite} -->`;
  const end = `<!-- /bench:${suite} -->`;
  const section = [start, ...lines, end].join('\n');
  const current = existsSync(path) ? readFileSync(path, 'utf8') : HEADER;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next = from !== -1 && to > from ? current.slice(0, from) + section + current.slice(to + end.length) : `${current.replace(/\n*$/, '\n\n')}${section}\n`;
  writeFileSync(path, next);
}
