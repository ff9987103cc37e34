// Runs every dispatch due at one instant in one deterministic order — what a walk's clock does as
// it passes a due time, and what a host without a worker loop can call. Each round steps the due
// dispatches earliest first (ties by id, which is creation order), claiming all it can before
// running any, so dispatches due together are dispatched together (a concurrency limit shows as
// such), then runs the claimed ones one at a time in claim order. Rounds repeat while they change
// something: a run that frees a slot makes the next queued dispatch due at the same instant.
import type { WorkReport } from '../../work/work-kind.js';
import type { ClaimedDispatch, DispatchWork } from './dispatch-work.js';

/** A runaway guard: every round moves some dispatch on, so this many means something is wrong. */
const MAX_ROUNDS = 10_000;

export async function runDueDispatches(
  work: DispatchWork,
  nowMs: number,
  batch = 100,
): Promise<WorkReport[]> {
  const reports: WorkReport[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let moved = false;
    const claimed: ClaimedDispatch[] = [];
    const stepped = new Set<string>();
    // Claim everything due, then what those claims made due (a dispatch that took a slot
    // nudges the next in its queue while slots remain), before running any of it.
    for (;;) {
      const due = (await work.due(nowMs, batch)).filter((item) => !stepped.has(item.id));
      if (due.length === 0) break;
      for (const item of due) {
        stepped.add(item.id);
        const result = await work.step(item.id);
        if (result.kind === 'idle') continue;
        moved = true;
        if (result.kind === 'claimed')
          claimed.push({ id: item.id, run: result.run, scheduledAt: result.scheduledAt });
        else
          reports.push({
            kind: work.name,
            id: item.id,
            outcome: result.kind,
            ...(result.kind === 'settled' ? { detail: result.runStatus } : {}),
          });
      }
    }
    for (const c of claimed) reports.push(await work.execute(c));
    if (!moved) return reports;
  }
  return reports;
}
