// Wall time moved by an offset the owner may change: the world clock of a world living days ahead,
// shared by a test and the child processes it starts (each given the same offset), so a store can
// be moved through a vendor's failure window in phases instead of waiting days. No vitest import.
import { RealClock, type Clock, type Task } from '../../src/world/clock.js';

export class OffsetClock implements Clock {
  private readonly real = new RealClock();
  constructor(public offsetMs: number) {}
  now(): number {
    return this.real.now() + this.offsetMs;
  }
  schedule(at: number, task: Task): () => void {
    return this.real.schedule(at - this.offsetMs, task);
  }
}
