import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The throwaway pom naming epubcheck's version (tools/epubcheck/pom.xml). */
const POM = join(REPO, 'tools/epubcheck/pom.xml');

/** What epubcheck said about one file. */
export interface EpubcheckReport {
  readonly fatals: number;
  readonly errors: number;
  readonly warnings: number;
  /** Everything it printed, for the failure message. */
  readonly output: string;
}

/**
 * The class path of the W3C validator (`org.w3c:epubcheck` from Maven Central, version from
 * tools/epubcheck/pom.xml), copied with its dependencies into `<repo>/.cache/epubcheck/<version>/libs`
 * on first use (as tools/stack does for Kafka): a temporary folder renamed when complete, so an
 * interrupted copy is never taken for a complete one.
 */
export async function epubcheckClassPath(): Promise<string> {
  const version = /<epubcheck\.version>([^<]+)<\/epubcheck\.version>/.exec(await readFile(POM, 'utf8'))?.[1];
  if (version === undefined) throw new Error(`${POM} names no <epubcheck.version>`);
  const libs = join(REPO, '.cache/epubcheck', version, 'libs');
  if (!existsSync(join(libs, `epubcheck-${version}.jar`))) {
    const tmp = `${libs}.tmp.${process.pid}`;
    await rm(tmp, { recursive: true, force: true });
    await mkdir(dirname(libs), { recursive: true });
    await run('mvn', ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', `-Depubcheck.libs=${tmp}`], { maxBuffer: 16 * 1024 * 1024 });
    await rm(libs, { recursive: true, force: true });
    await rename(tmp, libs);
  }
  return `${libs}/*`;
}

/**
 * Runs epubcheck (`com.adobe.epubcheck.tool.Checker`) on `file` and reads its summary line
 * (`Messages: N fatals / N errors / N warnings / N infos`). It exits 1 when there is an error; the
 * counts say which.
 */
export async function epubcheck(file: string): Promise<EpubcheckReport> {
  const classPath = await epubcheckClassPath();
  let output: string;
  try {
    const { stdout, stderr } = await run('java', ['-cp', classPath, 'com.adobe.epubcheck.tool.Checker', file], { maxBuffer: 16 * 1024 * 1024 });
    output = stdout + stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (failed.stdout === undefined) throw error;
    output = failed.stdout + (failed.stderr ?? '');
  }
  const summary = /Messages: (\d+) fatals? \/ (\d+) errors? \/ (\d+) warnings?/.exec(output);
  if (summary === null) throw new Error(`epubcheck printed no summary:\n${output}`);
  return { fatals: Number(summary[1]), errors: Number(summary[2]), warnings: Number(summary[3]), output };
}
