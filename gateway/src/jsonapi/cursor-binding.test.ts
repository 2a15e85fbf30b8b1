import { describe, expect, it } from 'vitest';
import { STORY_LIST } from '../../test/fixtures/list-schemas.fixture.js';
import { cursorBinding, cursorOwner } from './cursor-binding.js';
import { parseListQuery } from './list-query.parser.js';

const ada = { requestId: 'r', userId: '1', scopes: [] };
const bind = (text: string, caller = ada, endpoint = '/api/v1/stories'): string => cursorBinding(parseListQuery(STORY_LIST, new URLSearchParams(text)), endpoint, caller);

describe('cursorBinding', () => {
  it('is the same for the same list whatever the parameter order, spelling of sets, page size, include or fields', () => {
    const base = bind('filter[tags]=g:1,c:2&filter[num_words]=5&sort=-num_words');
    expect(bind('sort=-num_words&filter[num_words]=5,5&filter[tags]=c:2,g:1,g:1&page[size]=3&include=author&fields[story]=title')).toBe(base);
  });

  it('differs for other filters, sort, direction, search, endpoint or caller', () => {
    const base = bind('filter[num_words]=5,&sort=num_words&query=dragons');
    const others = [
      bind('filter[num_words]=6,&sort=num_words&query=dragons'),
      bind('filter[num_words]=,5&sort=num_words&query=dragons'),
      bind('filter[num_words]=5,&sort=-num_words&query=dragons'),
      bind('filter[num_words]=5,&sort=date_published&query=dragons'),
      bind('filter[num_words]=5,&sort=num_words&query=dragon'),
      bind('filter[num_words]=5,&sort=num_words'),
      bind('filter[num_words]=5,&sort=num_words&query=dragons', { requestId: 'r', userId: '2', scopes: [] }),
      bind('filter[num_words]=5,&sort=num_words&query=dragons', ada, '/api/v1/users/1/stories'),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });

  it('binds app-only tokens to the app and user tokens to the user, whatever the app', () => {
    expect(cursorOwner({ requestId: 'r', appId: 'a1', scopes: [] })).toBe('app:a1');
    expect(cursorOwner({ requestId: 'r', userId: '9', appId: 'a1', scopes: [] })).toBe('user:9');
    expect(bind('', { requestId: 'r', userId: '1', appId: 'other', scopes: [] } as typeof ada)).toBe(bind(''));
  });
});
