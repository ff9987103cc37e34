// The indexes a twin keeps, durable: every declaration is recorded in the store (meta key
// `indexes`, the declarations' signature) in the same transaction that builds it, loaded when a
// process opens the twin, and re-read by every write section (one small read, sent with the
// section's first round trip), so a process that never declared an index — or opened the twin
// before another process declared it — still maintains it with every write it makes.
import { TwinError } from '../errors.js';
import { indexSignature, validateIndex, type IndexDeclaration } from '../state/indexes.js';

/** The meta key holding every declaration of the twin, as `indexSignature` of the whole list. */
export const INDEXES_META_KEY = 'indexes';

/** The meta key marking one index as built for its declaration (its own signature). */
export function builtMetaKey(decl: IndexDeclaration): string {
  return `index:${decl.type}:${decl.name}`;
}

/** Parses the stored list; a missing or unreadable value is no declarations (nothing to adopt). */
export function decodeDeclarations(value: string | undefined): IndexDeclaration[] {
  if (value === undefined) return [];
  let rows: unknown;
  try {
    rows = JSON.parse(value);
  } catch {
    return [];
  }
  if (!Array.isArray(rows)) return [];
  const out: IndexDeclaration[] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    // An ordered or a folded index carries `{orderBy}` or `{fold}` last (indexSignature).
    const last: unknown = row[row.length - 1];
    const options =
      last !== null && typeof last === 'object'
        ? (last as { orderBy?: unknown; fold?: unknown })
        : {};
    const { orderBy, fold } = options;
    const cells = last !== null && typeof last === 'object' ? row.slice(0, -1) : row;
    if (cells.length < 3 || !cells.every((c) => typeof c === 'string')) continue;
    const [type, name, field, emptyKey] = cells as string[];
    out.push(
      validateIndex({
        type: type!,
        name: name!,
        field: field!,
        ...(emptyKey === undefined ? {} : { emptyKey }),
        ...(typeof orderBy === 'string' ? { orderBy } : {}),
        ...(fold === 'lower' ? { fold } : {}),
      }),
    );
  }
  return out;
}

/** The stored list with `decl` in it (replacing a declaration of the same type and name). */
export function withDeclaration(stored: string | undefined, decl: IndexDeclaration): string {
  const others = decodeDeclarations(stored).filter(
    (d) => d.type !== decl.type || d.name !== decl.name,
  );
  return indexSignature([...others, decl]);
}

function same(a: IndexDeclaration, b: IndexDeclaration): boolean {
  return (
    a.field === b.field && a.emptyKey === b.emptyKey && a.orderBy === b.orderBy && a.fold === b.fold
  );
}

/** One process's view of a twin's declarations, by type for the fold. */
export class DeclaredIndexes {
  private readonly byType = new Map<string, IndexDeclaration[]>();
  /** The stored value last adopted: a section whose read equals it has nothing to do. */
  private adopted: string | undefined;

  constructor(private readonly twin: string) {}

  of(type: string): readonly IndexDeclaration[] {
    return this.byType.get(type) ?? [];
  }

  named(type: string, name: string): IndexDeclaration | undefined {
    return this.of(type).find((d) => d.name === name);
  }

  /**
   * Declares `input` in this process. Returns the declaration when it is new here (the caller
   * builds it), undefined when the same one is already known; another field under a name this
   * process declared is refused.
   */
  declare(input: IndexDeclaration): IndexDeclaration | undefined {
    const decl = validateIndex(input);
    const existing = this.named(decl.type, decl.name);
    if (existing !== undefined) {
      if (existing.field !== decl.field) {
        throw new TwinError(
          'INVALID_ARGUMENT',
          `twin "${this.twin}": index "${decl.name}" on "${decl.type}" is already declared on field "${existing.field}"; pick another name`,
          { path: 'index.name' },
        );
      }
      // The same field with other options (a pack that now folds its keys): built again.
      if (same(existing, decl)) return undefined;
    }
    this.put(decl);
    return decl;
  }

  /**
   * Takes in the declarations the store holds: new ones are added, changed ones replace this
   * process's. Returns the types whose declarations changed (their cached lookups are stale).
   */
  adopt(stored: string | undefined): string[] {
    if (stored === undefined || stored === this.adopted) return [];
    this.adopted = stored;
    const changed: string[] = [];
    for (const decl of decodeDeclarations(stored)) {
      const known = this.named(decl.type, decl.name);
      if (known !== undefined && same(known, decl)) continue;
      this.put(decl);
      changed.push(decl.type);
    }
    return changed;
  }

  private put(decl: IndexDeclaration): void {
    const others = this.of(decl.type).filter((d) => d.name !== decl.name);
    this.byType.set(decl.type, [...others, decl]);
  }
}
