import { TAG_ID_PATTERN } from '@inkwell/proto/options';
import { describe, expect, it } from 'vitest';
import { isTagId } from '../domain/tag.js';

describe('isTagId', () => {
  it('accepts exactly what the proto’s tag_id rule accepts', () => {
    const samples = ['c:1', 'g:3', 'c:999999999', 'g:1000000000', 'x:1', 'c:0', 'c:01', 'c:', 'C:1', ' c:1', 'c:1 ', 'c:-1', 'g:12a', ''];
    for (const id of samples) expect(isTagId(id), id).toBe(TAG_ID_PATTERN.test(id));
  });
});
