import { isAppError } from '@inkwell/errors';
import { CreateStoryRequestSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { STORY } from '../../test/fixtures/list-schemas.fixture.js';
import { toErrorResponse } from './error.mapping.js';
import { defineWriteSpec, parseCreateBody, parseUpdateBody } from './write-body.parser.js';
import { identifierIds, writeValues } from './write-values.js';

const STORY_WRITE = defineWriteSpec({
  resource: STORY,
  attributes: { title: writeValues.string(), published: writeValues.boolean() },
  relationships: { tags: { type: 'tag', many: true, id: identifierIds.tag(CreateStoryRequestSchema.field.tagIds), maxItems: 3 } },
  required: ['title'],
});

/** The HTTP status and error entries the client would get. */
function answer(run: () => unknown): { status: number; errors: { code: string; source?: unknown; detail: string }[] } {
  try {
    run();
  } catch (error) {
    if (!isAppError(error)) throw error;
    const response = toErrorResponse(error);
    return { status: response.status, errors: response.document.errors.map(({ code, source, detail }) => ({ code, source, detail })) };
  }
  throw new Error('expected a rejection');
}

const story = (data: Record<string, unknown>): unknown => ({ data: { type: 'story', ...data } });

describe('parseCreateBody', () => {
  it('returns the attributes and relationship ids that were sent, deduplicated', () => {
    const body = parseCreateBody(STORY_WRITE, story({ attributes: { title: 'Dune', published: false }, relationships: { tags: { data: [{ type: 'tag', id: 'g:1' }, { type: 'tag', id: 'c:2' }, { type: 'tag', id: 'g:1' }] } } }));
    expect(body).toEqual({ attributes: { title: 'Dune', published: false }, relationships: { tags: ['g:1', 'c:2'] } });
  });

  it.each([
    [undefined, '400 without a body'],
    [[], '400 for an array'],
    [{ data: [] }, '400 for a data array'],
    [{ data: null }, '400 for null data'],
    [{ type: 'story' }, '400 without data'],
    [{ data: { attributes: {} } }, '400 without data.type'],
    [story({ attributes: [] }), '400 for attributes that are not an object'],
    [story({ attributes: { title: 'x' }, included: [] }), '400 for an unknown member'],
  ])('%j → %s invalid_body', (body) => {
    expect(answer(() => parseCreateBody(STORY_WRITE, body))).toMatchObject({ status: 400, errors: [{ code: 'invalid_body' }] });
  });

  it('answers a wrong type with 409 conflict and a client-chosen id with 403 forbidden', () => {
    expect(answer(() => parseCreateBody(STORY_WRITE, { data: { type: 'chapter', attributes: { title: 'x' } } }))).toMatchObject({ status: 409, errors: [{ code: 'conflict', source: { pointer: '/data/type' } }] });
    expect(answer(() => parseCreateBody(STORY_WRITE, story({ id: '5', attributes: { title: 'x' } })))).toMatchObject({ status: 403, errors: [{ code: 'forbidden', source: { pointer: '/data/id' } }] });
  });

  it('reports every attribute problem at once as 422 with pointers', () => {
    const result = answer(() => parseCreateBody(STORY_WRITE, story({ attributes: { num_words: 5, color: 'red', published: 'yes', author: '1' } })));
    expect(result.status).toBe(422);
    expect(result.errors).toEqual([
      { code: 'validation_failed', source: { pointer: '/data/attributes/num_words' }, detail: 'num_words is read-only.' },
      { code: 'validation_failed', source: { pointer: '/data/attributes/color' }, detail: 'color is not an attribute of story.' },
      { code: 'validation_failed', source: { pointer: '/data/attributes/published' }, detail: 'published must be true or false.' },
      { code: 'validation_failed', source: { pointer: '/data/attributes/author' }, detail: 'author is a relationship: send it under data.relationships.' },
      { code: 'validation_failed', source: { pointer: '/data/attributes/title' }, detail: 'title is required.' },
    ]);
  });

  it('passes text on as sent: blank or over-long titles are the owning service’s to refuse (docs/api/lists.md)', () => {
    expect(parseCreateBody(STORY_WRITE, story({ attributes: { title: '   ' } })).attributes.title).toBe('   ');
    expect(parseCreateBody(STORY_WRITE, story({ attributes: { title: 'x'.repeat(201) } })).attributes.title).toHaveLength(201);
  });

  it('answers a relationship that breaks JSON:API structure with 400 invalid_body at its pointer', () => {
    const cases: [unknown, string][] = [
      [{ tags: [{ type: 'tag', id: 'g:1' }] }, '/data/relationships/tags'],
      [{ tags: 'g:1' }, '/data/relationships/tags'],
      [{ tags: null }, '/data/relationships/tags'],
      [{ tags: { links: {} } }, '/data/relationships/tags'],
      [{ tags: { data: ['g:1'] } }, '/data/relationships/tags/data/0'],
      [{ tags: { data: 'g:1' } }, '/data/relationships/tags/data'],
    ];
    for (const [relationships, pointer] of cases) {
      expect(answer(() => parseCreateBody(STORY_WRITE, story({ attributes: { title: 't' }, relationships }))), pointer).toMatchObject({ status: 400, errors: [{ code: 'invalid_body', source: { pointer } }] });
    }
  });

  it('refuses text holding a NUL character as 422 at its pointer, with the other problems', () => {
    expect(answer(() => parseCreateBody(STORY_WRITE, story({ attributes: { title: 'a\u0000b', published: 'yes' } })))).toMatchObject({
      status: 422,
      errors: [
        { code: 'validation_failed', source: { pointer: '/data/attributes/title' }, detail: 'title must not contain the NUL character (U+0000).' },
        { code: 'validation_failed', source: { pointer: '/data/attributes/published' } },
      ],
    });
    expect(parseCreateBody(STORY_WRITE, story({ attributes: { title: 'a\\u0000b' } })).attributes.title).toBe('a\\u0000b');
  });

  it('validates relationship linkage with pointers into it', () => {
    const cases: [unknown, string][] = [
      [{ tags: { data: { type: 'tag', id: 'g:1' } } }, '/data/relationships/tags/data'],
      [{ tags: { data: [{ type: 'genre', id: 'g:1' }] } }, '/data/relationships/tags/data/0/type'],
      [{ tags: { data: [{ type: 'tag', id: 'g:1' }, { type: 'tag', id: 'x:2' }] } }, '/data/relationships/tags/data/1/id'],
      [{ tags: { data: [1, 2, 3, 4].map((n) => ({ type: 'tag', id: `g:${n}` })) } }, '/data/relationships/tags/data'],
      [{ author: { data: { type: 'user', id: '1' } } }, '/data/relationships/author'],
      [{ reviewers: { data: [] } }, '/data/relationships/reviewers'],
    ];
    for (const [relationships, pointer] of cases) {
      expect(answer(() => parseCreateBody(STORY_WRITE, story({ attributes: { title: 't' }, relationships }))), pointer).toMatchObject({ status: 422, errors: [{ code: 'validation_failed', source: { pointer } }] });
    }
  });

  it('accepts an empty to-many relationship (clearing it)', () => {
    expect(parseCreateBody(STORY_WRITE, story({ attributes: { title: 't' }, relationships: { tags: { data: [] } } })).relationships).toEqual({ tags: [] });
  });
});

describe('parseUpdateBody', () => {
  it('needs data.id equal to the URL and requires nothing else', () => {
    expect(parseUpdateBody(STORY_WRITE, story({ id: '7' }), '7')).toEqual({ attributes: {}, relationships: {} });
    expect(answer(() => parseUpdateBody(STORY_WRITE, story({ id: '8' }), '7'))).toMatchObject({ status: 409, errors: [{ code: 'conflict', source: { pointer: '/data/id' } }] });
    expect(answer(() => parseUpdateBody(STORY_WRITE, story({}), '7'))).toMatchObject({ status: 400, errors: [{ code: 'invalid_body' }] });
    expect(answer(() => parseUpdateBody(STORY_WRITE, story({ id: 7 }), '7'))).toMatchObject({ status: 400, errors: [{ code: 'invalid_body' }] });
  });

  it('still checks the types of the values it gets', () => {
    expect(answer(() => parseUpdateBody(STORY_WRITE, story({ id: '7', attributes: { title: 5 } }), '7'))).toMatchObject({ status: 422, errors: [{ source: { pointer: '/data/attributes/title' } }] });
  });
});

describe('writeValues', () => {
  it('accepts only the listed enumeration values', () => {
    expect(writeValues.enumeration(['teen', 'mature']).safeParse('teen').success).toBe(true);
    expect(writeValues.enumeration(['teen', 'mature']).safeParse('adult').error?.issues[0]?.message).toBe('must be one of teen, mature');
  });

  it('checks only the type of service-validated strings, and keeps integers within 32 bits', () => {
    expect(writeValues.string().safeParse('x'.repeat(5000)).success).toBe(true);
    expect(writeValues.string().safeParse(5).error?.issues[0]?.message).toBe('must be a string');
    expect(writeValues.int32().safeParse(-3).data).toBe(-3);
    for (const bad of [1.5, '2', 2_147_483_648, -2_147_483_649, null]) expect(writeValues.int32().safeParse(bad).success, String(bad)).toBe(false);
  });

  it('checks identifier ids', () => {
    expect(identifierIds.numeric().safeParse('12').success).toBe(true);
    expect(identifierIds.numeric().safeParse(12).success).toBe(false);
    expect(identifierIds.tag(CreateStoryRequestSchema.field.tagIds).safeParse('c:0').success).toBe(false);
  });
});
