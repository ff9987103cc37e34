// The check made when a twin opens: a database that holds fewer entries than the root recorded for it
// (emptied, truncated or replaced by an older copy) is refused, since opening it as it is would
// restart the log and lose the history.
import { TwinError } from '../errors.js';
import type { TwinStore } from '../storage/port.js';
import type { HeadMarks } from './head-marks.js';

/** The seq the root's mark holds for the twin (0: none), once the store was found to reach it. */
export async function checkedMark(
  world: { readonly root: string; readonly marks?: HeadMarks | undefined },
  name: string,
  store: TwinStore,
): Promise<number> {
  const mark = world.marks?.read(name);
  if (mark === undefined) return 0;
  const head = await store.head();
  if (head < mark.seq) {
    const file = world.marks!.file(name);
    throw new TwinError(
      'TWIN_LOG_MISSING',
      `twin "${name}" in the world at ${world.root} holds ${head === 0 ? 'no entries' : `only ${head} entries`}, but the root recorded that its log reached entry ${mark.seq} (${file}): its database was emptied, truncated or replaced by an older copy. Restore the database from a backup (or import an export of its log into it); if the loss is intended, delete ${file} to accept the database as it is`,
      { path: 'twin', details: { twin: name, head, recorded: mark.seq, file } },
    );
  }
  return mark.seq;
}
