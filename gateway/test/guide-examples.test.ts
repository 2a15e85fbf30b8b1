import { describe, expect, it } from 'vitest';
import { answerMismatches, guideExamples, runExample, shapeMismatches, substituteProvided } from './support/guide-examples.js';

/** The doc test's own rules (gateway/test/guide.doc.test.ts): what counts as an example, and when an answer has the shape a page shows. */
describe('guide examples', () => {
  it('takes every sh block as an example, with the json or http block after it as its answer', () => {
    const examples = guideExamples(['# Page', '', '```sh', 'echo 1', '```', 'It prints:', '```json', '{ "a": 1 }', '```', '', '```sh', 'curl -i x', '```', '```http', 'HTTP/1.1 201 Created', 'Location: …', '', '{ "data": {} }', '```'].join('\n'));
    expect(examples).toEqual([
      { line: 3, script: 'echo 1', expected: { kind: 'json', line: 7, body: { a: 1 } } },
      { line: 11, script: 'curl -i x', expected: { kind: 'http', line: 14, status: 201, headers: [['Location', '…']], body: { data: {} } } },
    ]);
  });

  it('refuses blocks that would not run, and answers that follow no example', () => {
    expect(() => guideExamples('```js\nfetch(x)\n```')).toThrow(/line 1: a ```js block/);
    expect(() => guideExamples('```json\n{}\n```')).toThrow(/follows no example/);
    expect(() => guideExamples('```sh\necho\n```\n```json\n1\n```\n```json\n2\n```')).toThrow(/line 7: an answer that follows no example/);
    expect(() => guideExamples('```sh\necho')).toThrow(/never closed/);
  });

  it('matches shapes: members and items shown, numbers, ids, dates, … wildcards, literal texts', () => {
    const shown = { data: { type: 'story', id: '7', attributes: { title: 'The …', num_words: 10, published: true, rating: null, date_published: '2026-11-20T10:00:00Z' }, links: { self: 'http://127.0.0.1:8080/api/v1/stories/7' } }, included: [{ type: 'user' }] };
    const actual = { data: { type: 'story', id: '191', attributes: { title: 'The Keeper', num_words: 3, published: true, rating: null, date_published: '2026-11-26T15:14:44.938Z', extra: 1 }, links: { self: 'http://127.0.0.1:8080/api/v1/stories/191' } }, included: [{ type: 'user', id: '1' }, { type: 'tag' }] };
    expect(shapeMismatches(shown, actual)).toEqual([]);
    expect(shapeMismatches(shown, { ...actual, data: { ...actual.data, type: 'chapter', id: 'x', links: { self: 'http://127.0.0.1:8080/api/v1/chapters/191' } } })).toEqual([
      '$.data.type: expected "story", got "chapter"',
      '$.data.id: expected "7", got "x"',
      '$.data.links.self: expected "http://127.0.0.1:8080/api/v1/stories/7", got "http://127.0.0.1:8080/api/v1/chapters/191"',
    ]);
    expect(shapeMismatches({ a: [1, 2] }, { a: [1] })).toEqual(['$.a: expected at least 2 items, got 1']);
    expect(shapeMismatches({ a: null, b: false, c: 'x' }, { b: true, c: 1 })).toEqual(['$.a: missing', '$.b: expected false, got true', '$.c: expected "x", got 1']);
  });

  it('checks an HTTP answer by status, the headers shown and the body', () => {
    const [example] = guideExamples('```sh\ncurl\n```\n```http\nHTTP/1.1 304 Not Modified\nETag: "…"\nRateLimit-Remaining: 997\n```');
    const expected = example?.expected;
    if (expected === undefined) throw new Error('no answer');
    expect(answerMismatches(expected, 'HTTP/1.1 304 Not Modified\r\netag: "abc"\r\nRateLimit-Remaining: 12\r\n\r\n')).toEqual([]);
    expect(answerMismatches(expected, 'HTTP/1.1 200 OK\r\nRateLimit-Remaining: many\r\n\r\n{}')).toEqual(['status 200, expected 304', 'no ETag header', 'RateLimit-Remaining: many, expected 997']);
    expect(answerMismatches(expected, 'nothing')).toEqual(['printed no HTTP answer: nothing']);
  });

  it('runs examples in bash, stops on any failure, and carries their variables to the next', async () => {
    const first = await runExample('GREETING=hello\nshow() { echo "$GREETING $1"; }', { PATH: process.env.PATH ?? '' }, process.cwd());
    expect(first.exitCode).toBe(0);
    const second = await runExample('show world', first.variables, process.cwd());
    expect(second).toMatchObject({ exitCode: 0, stdout: 'hello world\n' });
    expect((await runExample('false\necho after', {}, process.cwd())).exitCode).not.toBe(0);
    expect((await runExample('true && false', {}, process.cwd())).exitCode).not.toBe(0);
    expect((await runExample('echo "$NOT_SET"', {}, process.cwd())).exitCode).not.toBe(0);
  });

  it('gives provided variables their value where an example assigns them', async () => {
    const script = await substituteProvided("INKWELL=http://127.0.0.1:8080\n  export CODE=iwk_ac_…   # from the browser\nOTHER=1", { INKWELL: 'http://127.0.0.1:4321', CODE: async (variables) => `code-for-${variables.STATE}'s` }, { STATE: 's1' });
    expect(script).toBe("INKWELL='http://127.0.0.1:4321'\n  CODE='code-for-s1'\\''s'\nOTHER=1");
  });
});
