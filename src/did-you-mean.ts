// A near miss of a name the caller knows ("delivries" for "deliveries"): what a usage error or a
// refused key suggests. Close means at most two edits (a letter added, dropped, changed, or two
// neighbours swapped), and only a single closest name is suggested: two equally near would be a
// guess. Shared by the CLI and the library, so it sits under every layer.

/** Edits between `a` and `b` (insertions, deletions, substitutions, adjacent transpositions). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  return rows[a.length]![b.length]!;
}

/**
 * The one name within `maxEdits` (two unless given) of `given`, or undefined when none is (or
 * several are, equally). Case is no edit: "orderby" is "orderBy" misspelt in no letter.
 */
export function nearestName(
  given: string,
  names: readonly string[],
  maxEdits = 2,
): string | undefined {
  let best: string | undefined;
  let bestDistance = maxEdits + 1;
  let tied = false;
  for (const name of names) {
    const d = distance(given.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tied] = [name, d, false];
    else if (d === bestDistance) tied = true;
  }
  return tied ? undefined : best;
}

/** ` (did you mean "x"?)` for a near miss, else nothing. */
export function didYouMean(given: string, names: readonly string[]): string {
  const near = nearestName(given, names);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
}
