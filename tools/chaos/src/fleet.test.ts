import { describe, expect, it } from 'vitest';
import { regeneratedSecrets } from './fleet.js';

describe('regeneratedSecrets', () => {
  it('names Secrets whose UID or value changed, or that are missing afterwards, ignoring new ones', () => {
    const before = new Map([
      ['a', { uid: '1', value: 'x' }],
      ['b', { uid: '2', value: 'y' }],
      ['c', { uid: '3', value: 'z' }],
      ['gone', { uid: '4', value: 'w' }],
    ]);
    const after = new Map([
      ['a', { uid: '1', value: 'x' }],
      ['b', { uid: '2', value: 'changed' }],
      ['c', { uid: '9', value: 'z' }],
      ['new', { uid: '5', value: 'v' }],
    ]);
    expect(regeneratedSecrets(before, after)).toEqual(['b', 'c', 'gone']);
  });
});
