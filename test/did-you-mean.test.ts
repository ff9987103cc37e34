// The near-miss suggestion of a usage error or a refused key: one name within two edits (or the
// limit given), never a guess between two.
import { describe, expect, it } from 'vitest';
import { didYouMean, nearestName } from '../src/did-you-mean.js';

describe('nearestName', () => {
  const names = ['deliveries', 'log', 'listen', 'verify', 'replay'];
  it('names the one command within two edits: a letter dropped, added, changed, or two swapped', () => {
    expect(nearestName('delivries', names)).toBe('deliveries');
    expect(nearestName('deliveriess', names)).toBe('deliveries');
    expect(nearestName('verity', names)).toBe('verify');
    expect(nearestName('lgo', names)).toBe('log');
    expect(nearestName('REPLAY', names)).toBe('replay');
  });
  it('suggests nothing far off, or when two names are as near', () => {
    expect(nearestName('frobnicate', names)).toBeUndefined();
    expect(nearestName('lug', ['log', 'lag'])).toBeUndefined();
    expect(didYouMean('frobnicate', names)).toBe('');
    expect(didYouMean('delivries', names)).toBe(' (did you mean "deliveries"?)');
  });
  it('takes a tighter limit where two edits reach too far', () => {
    expect(nearestName('api', ['cli'])).toBe('cli');
    expect(nearestName('api', ['cli'], 1)).toBeUndefined();
    expect(nearestName('clii', ['cli'], 1)).toBe('cli');
  });
  it('counts no case as an edit, on either side', () => {
    expect(nearestName('orderby', ['orderBy', 'field'])).toBe('orderBy');
    expect(nearestName('emptyKye', ['emptyKey'])).toBe('emptyKey');
  });
});
