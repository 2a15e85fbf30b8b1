import { describe, expect, it } from 'vitest';
import { bioProblem, emailProblem, nameProblem, normalizeName, passwordProblem } from './account.js';

describe('account validation', () => {
  it('accepts names of letters and digits of any script, _, - and ., 1 to 64 characters', () => {
    for (const name of ['ada', 'brontë', 'Zoë.K_2-x', '李白', 'a', 'x'.repeat(64)]) expect(nameProblem(normalizeName(name)), name).toBeUndefined();
    for (const name of ['', 'x'.repeat(65), 'two words', 'at@sign', 'semi;colon', '<script>', 'tab\t']) expect(nameProblem(name), name).toBeDefined();
  });

  it('treats the two Unicode spellings of ë as one name', () => {
    expect(normalizeName('bronte\u0308')).toBe(normalizeName('bront\u00eb'));
  });

  it('accepts plausible e-mail addresses only', () => {
    for (const email of ['a@b.org', 'first.last+tag@sub.example.co.uk']) expect(emailProblem(email), email).toBeUndefined();
    for (const email of ['', 'plain', 'a@b', 'a@@b.org', 'a b@c.org', '@b.org', 'a@.org', `${'x'.repeat(250)}@b.org`]) expect(emailProblem(email), email).toBeDefined();
  });

  it('wants passwords of 10 to 1024 characters, counted as characters not bytes', () => {
    expect(passwordProblem('123456789')).toBeDefined();
    expect(passwordProblem('1234567890')).toBeUndefined();
    expect(passwordProblem('ééééééééé')).toBeDefined();
    expect(passwordProblem('x'.repeat(1025))).toBeDefined();
  });

  it('limits a bio to 1 MiB of UTF-8', () => {
    expect(bioProblem('x'.repeat(1024 * 1024))).toBeUndefined();
    expect(bioProblem('é'.repeat(512 * 1024 + 1))).toBeDefined();
  });
});
