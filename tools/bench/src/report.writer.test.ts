import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSection } from './report.writer.js';

describe('writeSection', () => {
  it('creates the file, appends new suites and replaces only its own section on later runs', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'bench-')), 'benchmarks.md');
    writeSection(path, 'auth', ['### auth', 'first']);
    writeSection(path, 'stories', ['### stories', 'rows']);
    writeSection(path, 'auth', ['### auth', 'second']);
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('# Benchmarks')).toBe(true);
    expect(text).toContain('<!-- bench:auth -->\n### auth\nsecond\n<!-- /bench:auth -->');
    expect(text).not.toContain('first');
    expect(text.indexOf('bench:auth')).toBeLessThan(text.indexOf('bench:stories'));
    expect(text).toContain('### stories\nrows');
  });

  it('keeps hand-written text around the sections', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'bench-')), 'benchmarks.md');
    writeFileSync(path, '# Benchmarks\n\nNotes by hand.\n');
    writeSection(path, 'auth', ['x']);
    expect(readFileSync(path, 'utf8')).toBe('# Benchmarks\n\nNotes by hand.\n\n<!-- bench:auth -->\nx\n<!-- /bench:auth -->\n');
  });
});
