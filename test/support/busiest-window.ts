// The most events in any one-second window [t, t + 1000) over every t: what a receiver's own rate
// limiter may count, whichever instant its second starts from (so it bounds calendar seconds too).
export function busiestWindow(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}
