// `twinworld listen <pack> --forward-to URL`: like `stripe listen`. Registers a temporary webhook
// endpoint for the pack, prints its signing secret, forwards every event any process causes to
// the local app and prints one line per attempt; on Ctrl-C it disables the endpoint (its
// deliveries and attempts stay in the log). See docs/console.md.
import { builtInPacks } from '../../../packs/built-in.js';
import { attemptType, deliveryOf } from '../../events/delivery-records.js';
import { DEFAULT_TIMEOUT_MS } from '../../events/dispatch/send.js';
import { Dispatcher } from '../../events/dispatcher.js';
import { findEndpoint, setEndpointEnabled } from '../../events/endpoint-lookup.js';
import { registerPack } from '../../events/pack-registry.js';
import { finishedAttempt } from '../../host/describe-entry.js';
import { followEntries } from '../../host/follow.js';
import { readHeads } from '../../host/console/heads.js';
import { RealClock } from '../../world/clock.js';
import { stringOption, UsageError, type Command } from '../command.js';
import { colourOn, painter, stateColour } from '../colour.js';
import { endpointOptionsFor, packEndpointOptions } from '../endpoint-options.js';
import { AttemptsInFlight } from '../in-flight.js';
import { write } from '../output.js';
import { cliPack, cliPacks } from '../pack-cli.js';
import { untilOutputClosed, untilSignal } from '../signals.js';
import { openStoreWorld } from '../store.js';

function parseEvents(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const events = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return events.length === 0 ? undefined : events;
}

export const listenCommand: Command = {
  name: 'listen',
  summary: "Forward a twin's webhooks to a local app (like `stripe listen --forward-to`)",
  usage:
    'listen <pack> --forward-to URL [--events a,b|*] [--repo R | --org O | --team T] [--poll MS] [--root DIR | --store URL] [--json]',
  description: [
    'Registers a temporary endpoint for <pack> pointing at URL, prints its signing secret, and',
    'sends every event it takes — whichever process caused it (`twinworld trigger`, a walk, the',
    'vendor API) — printing one line per attempt: → 200 customer.created evt_… 12 ms. Retries follow',
    "the pack's policy. On Ctrl-C the endpoint is disabled, the attempts in flight finish and their",
    'lines are printed; its deliveries and attempts stay. GitHub hooks belong to a repository',
    '(--repo owner/name) or an organization (--org login) that exists, as with `endpoints add`.',
  ].join('\n'),
  arguments: [
    [
      '<pack>',
      cliPacks()
        .map((p) => p.name)
        .join(', '),
    ],
  ],
  positionals: { min: 1, max: 1 },
  options: {
    'forward-to': {
      type: 'string',
      value: { kind: 'url' },
      short: 'f',
      arg: 'URL',
      description: 'where events are sent',
    },
    events: {
      type: 'string',
      value: { kind: 'text' },
      arg: 'a,b|*',
      description: 'the event types forwarded, comma-separated; all when absent',
    },
    poll: {
      type: 'string',
      value: { kind: 'count', min: 1 },
      arg: 'MS',
      description: 'how often the log heads are read (default 100)',
    },
    ...packEndpointOptions(),
  },
  jsonHelp:
    'print {"ready", endpoint, secret, url, events} once registered, one {"attempt"...} object per attempt and {"retired", endpoint} at the end',
  async run(args, io) {
    const pack = cliPack(args.positionals[0]!);
    const url = stringOption(args, 'forward-to');
    if (url === undefined) throw new UsageError('listen needs --forward-to URL');
    const events = parseEvents(stringOption(args, 'events'));
    const pollText = stringOption(args, 'poll');
    const pollMs = pollText === undefined ? 100 : Number(pollText);
    if (!/^\d+$/.test(pollText ?? '1') || pollMs < 1)
      throw new UsageError(`--poll must be a whole number of milliseconds ≥ 1, got "${pollText}"`);
    const options = endpointOptionsFor(pack, args);
    // Before the root is opened (or created): a refused listen leaves nothing behind.
    pack.cli.checkEndpoint?.({ url, ...(events === undefined ? {} : { events }), options });
    const paint = painter(colourOn(io, args.json));
    // Listening from the start: a Ctrl-C while starting up still ends in the orderly stop below.
    // A reader of stdout that went away (`listen | head -1`) stops it the same way: the endpoint
    // is disabled rather than left forwarding to an app nobody watches.
    const stopped = Promise.race([untilSignal(), untilOutputClosed()]);
    const world = await openStoreWorld(args.store, { clock: new RealClock() });
    try {
      for (const p of builtInPacks) registerPack(world, p);
      const decl = builtInPacks.find((p) => p.name === pack.name)!.events!;
      const twin = world.twin(pack.twin);
      const dispatcher = new Dispatcher(world, { autoDispatch: false });
      const from = await readHeads(world);
      const added = await pack.cli.addEndpoint(twin, {
        url,
        ...(events === undefined ? {} : { events }),
        options,
      });
      // Retired, not removed: the deliveries and attempts that name it stay readable. First thing
      // on the way out, and on any way out, so a second Ctrl-C or an error cannot leave other
      // senders (serve, work) forwarding to a URL nobody listens at any more.
      let retired = false;
      const retire = async (): Promise<void> => {
        if (retired) return;
        retired = true;
        await setEndpointEnabled(world, await findEndpoint(world, added.id, pack.name), false);
      };
      // Set once Ctrl-C came: deliveries seen from then on are not sent from here any more.
      let stopping = false;
      try {
        const ours = new Map<string, { eventType: string; eventId: string }>();
        const sends = new Set<Promise<unknown>>();
        const inFlight = new AttemptsInFlight();
        const out = (value: Record<string, unknown>, text: string): Promise<void> =>
          write(io.stdout, args.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
        const follower = await followEntries(world, {
          twins: [pack.twin],
          pollMs,
          from,
          onEntry: async (e) => {
            if (e.subjectType === decl.recordType && e.operation === `${decl.recordType}.create`) {
              const d = deliveryOf({ fields: e.fields ?? {} });
              if (d.endpointId !== added.id) return;
              ours.set(e.subjectId, { eventType: d.eventType, eventId: d.eventId });
              if (stopping) return;
              // Sent from here; a claim another sender won is simply not ours to make.
              const send = dispatcher.dispatch(pack.name, e.subjectId, 'first').catch((error) => {
                world.reportError(error, `forwarding ${e.subjectId}`);
              });
              sends.add(send);
              void send.finally(() => sends.delete(send));
              return;
            }
            if (ours.has(e.subjectId)) inFlight.note(e, decl.recordType);
            const finished = finishedAttempt(e, decl.recordType);
            if (finished === undefined) return;
            const attempt = await twin.get(attemptType(decl.recordType), finished.id);
            const deliveryId = String(attempt?.fields.delivery ?? '');
            const event = ours.get(deliveryId);
            if (attempt === undefined || event === undefined) return;
            const f = attempt.fields;
            const ms = Date.parse(String(f.finishedAt)) - Date.parse(String(f.startedAt));
            const status = typeof f.status === 'number' ? f.status : null;
            // What the attempt left the delivery in, from the entry that finished it: whether (and
            // when, on the world clock) it is tried again is what a failing app's owner asks next.
            const left = e.subjectType === decl.recordType ? (e.fields ?? {}) : {};
            const deliveryState = typeof left.state === 'string' ? left.state : null;
            const nextAttemptAt =
              deliveryState === 'retrying' && typeof left.nextAttemptAt === 'string'
                ? left.nextAttemptAt
                : null;
            const then =
              nextAttemptAt !== null
                ? ` (retry at ${nextAttemptAt})`
                : deliveryState === 'failed'
                  ? ' (no retries left: delivery failed)'
                  : '';
            await out(
              {
                attempt: finished.id,
                delivery: deliveryId,
                number: f.number ?? null,
                eventType: event.eventType,
                eventId: event.eventId,
                status,
                outcome: f.state ?? null,
                reason: f.reason ?? null,
                durationMs: Number.isFinite(ms) ? ms : null,
                deliveryState,
                nextAttemptAt,
              },
              `${`${paint(stateColour(String(f.state)), `→ ${status ?? String(f.reason ?? f.state)}`)} ${event.eventType} ${event.eventId} ${Number.isFinite(ms) ? `${ms} ms` : ''}`.trimEnd()}${then}`,
            );
          },
        });
        await out(
          {
            ready: true,
            pack: pack.name,
            endpoint: added.id,
            secret: added.secret,
            url,
            events: added.events,
          },
          [
            `Ready! Forwarding ${pack.name} events to ${url}`,
            `  endpoint ${added.id} (temporary: disabled on Ctrl-C)`,
            `  secret   ${added.secret}`,
            `  events   ${added.events.join(',')}`,
          ].join('\n'),
        );
        await stopped;
        stopping = true;
        await retire();
        // The attempts in flight (first sends, and retries the dispatcher runs) end before the
        // follower stops, and the entries they appended are read up to the head: each one's
        // line is printed, not lost with the process.
        await Promise.all([...sends]);
        await dispatcher.close();
        await follower.catchUp();
        // Attempts another sender (up, work) is making to it end too, and are printed: an attempt
        // started before the stop ends within its timeout, and its sender records it soon after.
        await inFlight.settle(
          () => follower.catchUp(),
          (decl.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 5_000,
          Math.min(pollMs, 50),
        );
        await follower.stop();
        await out({ retired: true, endpoint: added.id }, `endpoint ${added.id} disabled`);
      } finally {
        await retire();
      }
    } finally {
      await world.close();
    }
    return 0;
  },
};
