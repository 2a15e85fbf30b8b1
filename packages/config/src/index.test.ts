import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, envFlag, loadConfig, markdownEnv } from './index.js';

const schema = z.object({
  DATABASE_URL: z.url(),
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

describe('loadConfig', () => {
  it('returns typed values with defaults applied', () => {
    const config = loadConfig(schema, { DATABASE_URL: 'postgres://localhost/x' });
    expect(config).toEqual({ DATABASE_URL: 'postgres://localhost/x', PORT: 8080, LOG_LEVEL: 'info' });
  });

  it('reports every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: '99999', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = (error as ConfigError).problems.map((line) => line.split(':')[0]);
    expect(names.sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'PORT']);
  });
});

describe('markdownEnv', () => {
  const markdown = z.object(markdownEnv);

  it('leaves unset variables undefined, so the render pool keeps its defaults', () => {
    expect(loadConfig(markdown, {})).toEqual({});
  });

  it('reads numbers and refuses a zero worker count or a non-numeric deadline', () => {
    expect(loadConfig(markdown, { MARKDOWN_RENDER_WORKERS: '3', MARKDOWN_RENDER_DEADLINE_MS: '500', MARKDOWN_RENDER_MEMORY_MB: '128' }))
      .toEqual({ MARKDOWN_RENDER_WORKERS: 3, MARKDOWN_RENDER_DEADLINE_MS: 500, MARKDOWN_RENDER_MEMORY_MB: 128 });
    expect(() => loadConfig(markdown, { MARKDOWN_RENDER_WORKERS: '0', MARKDOWN_RENDER_DEADLINE_MS: 'soon' })).toThrow(ConfigError);
  });
});

describe('envFlag', () => {
  const schema = z.object({ ON: envFlag.default(true), OFF: envFlag.default(false) });

  it('reads true/1 and false/0, and takes its default when unset', () => {
    expect(loadConfig(schema, { ON: '0', OFF: '1' })).toEqual({ ON: false, OFF: true });
    expect(loadConfig(schema, { ON: 'false', OFF: 'true' })).toEqual({ ON: false, OFF: true });
    expect(loadConfig(schema, {})).toEqual({ ON: true, OFF: false });
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => loadConfig(schema, { ON: 'yes' })).toThrow(/ON:/);
  });
});
