// The state layer's public calls refuse a declaration they cannot use up front, naming it:
// recordKind() failed as a destructuring TypeError, and a misspelt "indexs" left the kind without
// its indexes, so every lookup through it was refused far from the declaration.
import { describe, expect, it } from 'vitest';
import { recordKind } from '../../src/state/record-kind.js';

function refusal(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('public arguments of the state layer', () => {
  it('recordKind refuses a spec it cannot use, suggesting the key meant', () => {
    const kind = recordKind as unknown as (spec?: unknown) => unknown;
    for (const [spec, path, words] of [
      [undefined, 'spec', 'got undefined'],
      ['customer', 'spec', 'got "customer"'],
      [{}, 'spec.type', 'got undefined'],
      [{ type: '' }, 'spec.type', 'non-empty string'],
      [
        { type: 'customer', indexs: { byPlan: 'plan' } },
        'spec.indexs',
        '(did you mean "indexes"?)',
      ],
      [{ type: 'customer', id: 'cus' }, 'spec.id', 'must be a function'],
      [{ type: 'customer', indexes: ['plan'] }, 'spec.indexes', 'got an array'],
      [{ type: 'customer', indexes: { byPlan: 7 } }, 'spec.indexes.byPlan', 'got 7'],
    ] as const)
      expect(refusal(() => kind(spec))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
        message: expect.stringContaining(words),
      });
    expect(
      recordKind({ type: 'customer', indexes: { byPlan: 'plan', byTag: { field: 'tags' } } })
        .indexes,
    ).toHaveLength(2);
  });
});
