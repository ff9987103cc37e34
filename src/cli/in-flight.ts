// The attempts in flight on the deliveries a follower watches, whichever process makes them.
// `listen` waits for them on its way out so that each one's line is printed (docs/console.md):
// beside `twinworld up` or a worker, the attempt to its endpoint is usually theirs, not its own,
// and it ended before they finished. Known from the entries followed: a claim puts a delivery in
// `sending`, the entry that ends the attempt moves it on.
import type { Entry } from '../log/write.js';

export class AttemptsInFlight {
  private readonly sending = new Set<string>();

  /** Notes what a delivery record's entry says of its state; other entries are not looked at. */
  note(e: Entry, recordType: string): void {
    const state = e.fields?.state;
    if (e.subjectType !== recordType || typeof state !== 'string') return;
    if (state === 'sending') this.sending.add(e.subjectId);
    else this.sending.delete(e.subjectId);
  }

  /**
   * Reads on (`catchUp`) every `everyMs` until no attempt is in flight, for at most `withinMs`: an
   * attempt ends within its timeout, and one whose sender died is left to its lease, not waited on.
   */
  async settle(catchUp: () => Promise<void>, withinMs: number, everyMs: number): Promise<void> {
    // A timer bounds the wait, not a reading of the wall clock: the bound is on this process's
    // own patience, and nothing it decides is written to the log.
    let expired = false;
    const bound = setTimeout(() => (expired = true), withinMs);
    try {
      while (this.sending.size > 0 && !expired) {
        await new Promise((resolve) => setTimeout(resolve, everyMs));
        await catchUp();
      }
    } finally {
      clearTimeout(bound);
    }
  }
}
