// A world's whole history as one JSONL stream: every twin's entries, merged in world-clock order
// (ties by twin name, then seq). Each twin's own order is kept, so the stream replays as is.
import type { World } from '../world/world.js';

interface Keyed {
  readonly recordedAt: string;
  readonly twin: string;
  readonly seq: number;
  readonly line: string;
}

export async function exportWorldLines(world: World): Promise<string[]> {
  const all: Keyed[] = [];
  for (const name of await world.twinNames()) {
    for await (const line of world.twin(name).exportLines()) {
      const { recordedAt, seq } = JSON.parse(line) as { recordedAt: string; seq: number };
      all.push({ recordedAt, twin: name, seq, line });
    }
  }
  all.sort((a, b) =>
    a.recordedAt < b.recordedAt
      ? -1
      : a.recordedAt > b.recordedAt
        ? 1
        : a.twin < b.twin
          ? -1
          : a.twin > b.twin
            ? 1
            : a.seq - b.seq,
  );
  return all.map((k) => k.line);
}

/** State hash of every twin that holds at least one entry (a replay knows no empty twins). */
export async function worldHashes(world: World): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await world.twinNames()) {
    const twin = world.twin(name);
    if ((await twin.head()) > 0) out[name] = await twin.hash();
  }
  return out;
}
