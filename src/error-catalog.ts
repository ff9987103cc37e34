// Every error code with what it means, the HTTP status a host answers it with, and how to fix it.
// One table for the host's status mapping and for docs/errors.md (generated from it by
// `npm run docs:errors`; test/docs.test.ts fails when the page and the table disagree). Typed by
// TwinErrorCode, so a new code without an entry does not compile.
import type { TwinErrorCode } from './errors.js';

export interface ErrorEntry {
  /** Where it comes from, for grouping in docs/errors.md. */
  readonly area: ErrorArea;
  /**
   * The status the HTTP host answers when this error ends a request: 4xx when the request itself is
   * refused (a retry of the same request will not help), 503 when the store or world is busy or
   * away (a retry may), 500 for the rest (the body still names the code, never a stack trace).
   */
  readonly status: number;
  /** What happened, in one sentence. */
  readonly means: string;
  /** What to do about it. */
  readonly fix: string;
}

export type ErrorArea =
  | 'writes and logs'
  | 'world and store'
  | 'work and delivery'
  | 'triggers and ingress'
  | 'configuration and CLI';

export const ERROR_CATALOG: { readonly [C in TwinErrorCode]: ErrorEntry } = {
  INVALID_WRITE: {
    area: 'writes and logs',
    status: 422,
    means:
      'A write is not well-formed: a value that is not plain JSON (undefined, NaN, ±Infinity, a function, a cycle, a BigInt, a class instance, a sparse array, a lone surrogate), a missing subject, an unknown key, or a time that is not a real instant.',
    fix: 'Read `path` in the error: it names the offending value. Send plain JSON with the documented keys; nothing was appended.',
  },
  PAYLOAD_TOO_LARGE: {
    area: 'writes and logs',
    status: 413,
    means:
      'A write is over 1 MiB of canonical JSON, a trigger payload over 512 KiB, or a webhook body over the ingress limit (256 KiB by default).',
    fix: 'Keep large blobs outside the log and store a reference; for the ingress, raise `maxBodyBytes` if the sender truly needs it.',
  },
  INVALID_ARGUMENT: {
    area: 'configuration and CLI',
    status: 400,
    means: 'A function was called with an argument it cannot use (a wrong type, range or shape).',
    fix: 'The message names the argument (`path`) and what it accepts; correct the call.',
  },
  IMPORT_MALFORMED_LINE: {
    area: 'writes and logs',
    status: 400,
    means:
      'A line of an imported or replayed JSONL log is not a valid entry; the import stopped there and what came before stays.',
    fix: 'Fix or remove the named line (its number is in the message) and import again; the import resumes where it stopped.',
  },
  IMPORT_CONFLICT: {
    area: 'writes and logs',
    status: 409,
    means:
      'An imported entry takes a seq the twin already holds with a different entry, or another process wrote meanwhile.',
    fix: 'Import into an empty twin (or another twin name), and keep other writers away while importing.',
  },
  IMPORT_CHAIN_BROKEN: {
    area: 'writes and logs',
    status: 422,
    means:
      "An imported or replayed line's `prev` is not the hash of the line before it (or of genesis, or of the twin's newest entry); or `twinworld export` found the stored log so (or an entry missing, or the newest unlike the hash recorded for it).",
    fix: 'The file was changed or does not continue this twin: take a fresh export from the source, or import into a new twin. For a stored log, `twinworld verify` names the entry; `export --allow-broken` writes it out as stored.',
  },
  TWIN_LOG_MISSING: {
    area: 'world and store',
    status: 500,
    means:
      "A twin's database holds fewer entries than the root remembers: it was emptied, truncated or swapped for an older copy.",
    fix: 'Restore the database, or import an export of its log; delete the `.head` file only to accept the loss.',
  },
  UNKNOWN_TWIN: {
    area: 'configuration and CLI',
    status: 404,
    means: 'A read command named a twin the world does not hold.',
    fix: 'Check the twin name, and that `--root` or `--store` points at the right world.',
  },
  WORLD_CLOSED: {
    area: 'world and store',
    status: 503,
    means: 'A world or twin was used after `world.close()`.',
    fix: 'Open the world again, or close it only after the last use.',
  },
  NO_WORLD: {
    area: 'world and store',
    status: 500,
    means: 'Code that needs the active world ran outside any `world.run`.',
    fix: 'Wrap the call in `world.run(() => …)` or pass the world explicitly.',
  },
  ASYNC_DECIDE: {
    area: 'world and store',
    status: 500,
    means:
      'A `decide` passed to `applyAtomic` returned a promise; decide runs under the lock and must be synchronous.',
    fix: 'Do the asynchronous work first, then call `applyAtomic` with a synchronous decide over its result.',
  },
  UNSTABLE_DECIDE: {
    area: 'world and store',
    status: 500,
    means:
      'A `decide` read different keys every time it ran on the same state, so an asynchronous store could never give it what it asks for.',
    fix: 'Make decide pure: its reads must depend only on the view (no clocks, random numbers or outside state).',
  },
  STORE_UNREACHABLE: {
    area: 'world and store',
    status: 503,
    means:
      'The database server did not answer (host, port and the driver’s reason are in the message).',
    fix: 'Check that the server runs and the URL’s host and port are right; the twin retries nothing by itself.',
  },
  STORE_AUTH_FAILED: {
    area: 'world and store',
    status: 500,
    means: 'The database refused the user or password in the store URL.',
    fix: 'Correct the credentials in `--store` / `TWINWORLD_STORE` (messages never show the password).',
  },
  STORE_PERMISSION_DENIED: {
    area: 'world and store',
    status: 500,
    means: 'The database role lacks a privilege the backend needs (named in the message).',
    fix: 'Grant the named privilege to the role, or connect as the role the message names.',
  },
  STORE_SCHEMA_TOO_NEW: {
    area: 'world and store',
    status: 500,
    means: "The database's schema was written by a newer twinworld than this one.",
    fix: 'Upgrade twinworld on this host to the version that migrated the schema.',
  },
  STORE_SERVER_TOO_OLD: {
    area: 'world and store',
    status: 500,
    means:
      'The PostgreSQL server is older than twinworld can run on (12); its version is in the message.',
    fix: 'Upgrade the server to PostgreSQL 12 or later, or keep the world on a SQLite root.',
  },
  STORE_BUSY: {
    area: 'world and store',
    status: 503,
    means: "Another section held the twin's lock longer than the lock timeout.",
    fix: 'Retry; if it persists, find the slow section or raise `lockTimeoutMs`.',
  },
  STORE_FAILED: {
    area: 'world and store',
    status: 500,
    means:
      "The store could not complete an operation it should always be able to (a transaction that did not start, an entry that cannot be read), or a SQLite root's file is no database, a damaged one, or a folder.",
    fix: 'Run `twinworld verify <twin>`; the message says which entry, step or file failed (a damaged file: restore it from a backup, or move it out of the root).',
  },
  TENANT_MISMATCH: {
    area: 'world and store',
    status: 403,
    means:
      'A section scoped to one tenant tried to write a resource of another tenant (PostgreSQL row-level security).',
    fix: 'Run the action in the tenant the resource belongs to.',
  },
  PAYLOAD_CONFLICT: {
    area: 'triggers and ingress',
    status: 422,
    means: 'An envelope reused a dedupe key already recorded with a different payload.',
    fix: 'Give distinct events distinct dedupe keys; resend the same event with the same payload.',
  },
  STALE_OWNER: {
    area: 'work and delivery',
    status: 409,
    means:
      'A finish or heartbeat came from an owner that lost its claim (its lease lapsed and another took over, or it was superseded); what it reported is kept as `lateObservation`.',
    fix: 'Nothing to repair: the new owner carries on. Heartbeat more often than the lease, or lengthen the lease, if it happens under normal load.',
  },
  REVISION_MISMATCH: {
    area: 'triggers and ingress',
    status: 409,
    means: 'A schedule change or claim was made against a revision other than the stored one.',
    fix: 'Read the schedule again and retry against its current revision (both are named in the message).',
  },
  INVALID_OPTIONS: {
    area: 'configuration and CLI',
    status: 400,
    means:
      'A listing, history or prune call got an option it cannot use (a bad limit, cursor, outcome or date).',
    fix: 'The message names the option and what it accepts.',
  },
  UNDECODABLE_RECORD: {
    area: 'triggers and ingress',
    status: 500,
    means:
      'A stored row cannot be read as the record it should be; it is left as stored and reported beside the listing.',
    fix: 'Inspect the named resource (`twinworld state`); correct it with a write, or remove it.',
  },
  UNKNOWN_TRIGGER: {
    area: 'triggers and ingress',
    status: 404,
    means: 'A trigger id, or a trigger record, that nothing registered or recorded.',
    fix: 'Register a route or source for the trigger, or check the id.',
  },
  UNKNOWN_DISPATCH: {
    area: 'triggers and ingress',
    status: 404,
    means: 'No deferred dispatch has this id (for this tenant).',
    fix: 'Check the id from the `Location` header or `twinworld dispatches list`.',
  },
  DISPATCH_NOT_CANCELLABLE: {
    area: 'triggers and ingress',
    status: 409,
    means: 'A dispatch that already ran or expired was asked to be cancelled.',
    fix: 'Only a dispatch still delayed, debounced or queued can be cancelled; its run, if any, is named in the message.',
  },
  UNKNOWN_DELIVERY: {
    area: 'work and delivery',
    status: 404,
    means: 'No delivery record has this id.',
    fix: 'Check the id with `twinworld deliveries`.',
  },
  UNKNOWN_PACK: {
    area: 'configuration and CLI',
    status: 404,
    means: 'A pack name that is not registered.',
    fix: 'Use one of the packs the message lists (stripe, github, slack, standard-webhooks, or your own registered one).',
  },
  UNKNOWN_EVENT_TYPE: {
    area: 'configuration and CLI',
    status: 422,
    means: 'An event type the pack does not send.',
    fix: 'Use one of the types the message lists (`twinworld send --list`, `trigger --list`).',
  },
  BAD_SIGNATURE: {
    area: 'triggers and ingress',
    status: 401,
    means: "A webhook's signature does not verify with any of the endpoint's secrets.",
    fix: 'Configure the sender and the endpoint with the same secret, and send the body byte for byte as signed.',
  },
  STALE_TIMESTAMP: {
    area: 'triggers and ingress',
    status: 401,
    means:
      "A signed webhook's timestamp is outside the tolerance, or the packet was already seen (a replay).",
    fix: "Check the sender's clock; a genuine retry is signed afresh by the vendor.",
  },
  MISSING_HEADER: {
    area: 'triggers and ingress',
    status: 401,
    means: 'A webhook lacks a header its signing scheme needs.',
    fix: 'Send the headers the scheme names (e.g. `Stripe-Signature`, `X-Hub-Signature-256`).',
  },
  INVALID_ENVELOPE: {
    area: 'triggers and ingress',
    status: 400,
    means: 'A trigger envelope is missing a field or has a malformed one (ids, times, payload).',
    fix: 'The message names the field (`path`) and its expected form.',
  },
  INVALID_BODY: {
    area: 'triggers and ingress',
    status: 400,
    means:
      'A webhook body is not the JSON (or form) its scheme expects, or breaks the input limits.',
    fix: 'Send the body the vendor would; see docs/limits.md for nesting, numbers and text.',
  },
  NOT_CLAIMABLE: {
    area: 'work and delivery',
    status: 409,
    means:
      'A delivery cannot be attempted now: it was refused as an incomplete packet, or an attempt is still in flight.',
    fix: 'Wait for the attempt in flight (or run `twinworld recover` if its sender crashed); fix the endpoint of a refused one and let the event fire again.',
  },
  INVALID_CONFIG: {
    area: 'configuration and CLI',
    status: 400,
    means:
      'A configuration (serve file, flags, store URL, environment variable) is wrong; the message names the field or variable, never a secret value.',
    fix: 'Correct the named field; the host refuses to start until it is right.',
  },
  HASH_MISMATCH: {
    area: 'writes and logs',
    status: 500,
    means:
      '`twinworld replay --expect` folded the log to another state hash than expected (or could not tell which twin to check).',
    fix: 'Compare the two logs with `twinworld verify`; name the twin with `--expect <twin>=HASH` when a file holds several.',
  },
  UNKNOWN_ENDPOINT: {
    area: 'triggers and ingress',
    status: 404,
    means:
      'No webhook endpoint is configured for this tenant and provider, or an endpoint id nobody registered.',
    fix: 'Add the endpoint to the serve configuration (or `twinworld endpoints add`), or check the URL.',
  },
  UNKNOWN_ROUTINE: {
    area: 'triggers and ingress',
    status: 404,
    means: 'A route names a routine the runner does not have.',
    fix: "Register it with `runner.register(id, fn)`, add it to the runner's routine store, or export it from the child-process runner's module (docs/routine-runners.md).",
  },
  ROUTINE_FAILED: {
    area: 'triggers and ingress',
    status: 500,
    means:
      'The routine a trigger started threw or did not finish; the trigger record keeps the attempt.',
    fix: 'Fix the routine; the sender retries (a non-2xx answer) and the run is attempted again.',
  },
  ROUTINE_CRASHED: {
    area: 'triggers and ingress',
    status: 500,
    means:
      'The child process a routine ran in exited (a crash, a kill, an exit call) before it answered; the attempt is failed.',
    fix: 'Find why the process died (its stderr); a retried delivery or recoverIncomplete runs the attempt again.',
  },
  ROUTINE_TIMEOUT: {
    area: 'triggers and ingress',
    status: 500,
    means: "A routine ran longer than the child-process runner's timeoutMs; its child was killed.",
    fix: 'Make the routine finish sooner or raise timeoutMs; the attempt runs again on a retry or recovery.',
  },
  ROUTINE_LOCKED: {
    area: 'triggers and ingress',
    status: 409,
    means:
      'Another process still executes this run (it holds the run lock), e.g. a child outliving the host that started it.',
    fix: 'Nothing: the attempt is failed and runs again once the holder finished or died.',
  },
  ENGINE_STOPPED: {
    area: 'triggers and ingress',
    status: 503,
    means: 'The trigger engine is stopping or stopped and takes no new work.',
    fix: 'Retry after `Retry-After`; another host of the store, or this one restarted, will take it.',
  },
  TENANT_FORBIDDEN: {
    area: 'triggers and ingress',
    status: 403,
    means:
      "A tenant context tried to act on another tenant's records, or to do what it may not (`ingest`, `recover`, `read`, `configure`).",
    fix: 'Use a context for the tenant that owns the records, with the permission the operation needs.',
  },
  SECRET_RETIRED: {
    area: 'world and store',
    status: 409,
    means: 'A secret reference that was deleted is being set again.',
    fix: 'Make a new reference; a retired one never signs again, so a stale record cannot pick up another endpoint’s secret.',
  },
  ROOT_NOT_FOUND: {
    area: 'world and store',
    status: 500,
    means:
      'A world opened to read (every read command) names a root folder that does not exist, or the root is a symbolic link to nothing (for reads and writes alike).',
    fix: 'Check `--root`, or write something first (writing commands create the root); for a link, create its target or point `--root` at a folder.',
  },
  ROOT_NOT_A_FOLDER: {
    area: 'world and store',
    status: 500,
    means: "The world's root, or the `twins` folder inside it, is a file, not a folder.",
    fix: 'Point `--root` at a folder; move a file named `twins` out of the root.',
  },
  ROOT_READ_ONLY: {
    area: 'world and store',
    status: 500,
    means:
      'This process cannot write in the root folder (SQLite needs to write beside a twin even to read it).',
    fix: 'Give the process write permission on the root, or use a copy of it.',
  },
  EXPORT_FAILED: {
    area: 'writes and logs',
    status: 500,
    means:
      '`twinworld export --out FILE` (or `walk --save PATH`, `walk.saveFixture`) could not write or rename its file; nothing was left behind.',
    fix: 'Check that the target folder exists and is writable, and that there is space.',
  },
  CLOCK_NOT_VIRTUAL: {
    area: 'configuration and CLI',
    status: 409,
    means:
      'The console was asked to advance the world clock of a world that runs on the real clock, which nothing can move.',
    fix: 'Start `twinworld console --clock ISO` (a virtual clock), or mount the console on a host whose world has a VirtualClock.',
  },
  UNKNOWN_ACTION: {
    area: 'configuration and CLI',
    status: 404,
    means: 'The console was asked for an action it does not have.',
    fix: 'Use one of the actions docs/console.md lists (redeliver, endpoint.disable, endpoint.enable, dispatch.cancel, schedule.pause, schedule.resume, clock.advance).',
  },
  CONSOLE_TOKEN: {
    area: 'configuration and CLI',
    status: 401,
    means:
      'A request to the console came without the token `twinworld console` printed at start, or with another one (actions take it only from the x-twinworld-token header).',
    fix: 'Open the URL the console printed (it carries the token), or send the token as the x-twinworld-token header.',
  },
  DISK_FULL: {
    area: 'world and store',
    status: 507,
    means:
      'The disk (or the SQLite file size limit) is full: the write could not be made durable, and nothing was appended.',
    fix: 'Free space on the volume that holds the root (or raise its quota), then run the command again; what was appended before stays.',
  },
  PORT_IN_USE: {
    area: 'configuration and CLI',
    status: 500,
    means:
      'A server (`up`, `console`, `serve`, or a host your code starts) was asked for a port on 127.0.0.1 that another process already listens on.',
    fix: 'Stop the other process, or pick another `--port` (0 picks a free one and prints it).',
  },
  PORT_NOT_PERMITTED: {
    area: 'configuration and CLI',
    status: 500,
    means:
      'A server was asked for a port this user may not open (on most systems, ports below 1024 need privileges).',
    fix: 'Pick a `--port` of 1024 or more, or 0 for a free one.',
  },
  LOG_FILE_UNREADABLE: {
    area: 'writes and logs',
    status: 400,
    means:
      "The log file given to `import`, `replay` or `checkFixture` cannot be read: there is no such file, it is a folder, this user may not read it, or it is no UTF-8 JSONL log (a twin's database, a compressed file, UTF-16 text). Nothing was read or written.",
    fix: 'Check the path the message names (`twinworld export --out FILE` writes a log file), or pass `-` to read stdin.',
  },
  WALK_FAILED: {
    area: 'configuration and CLI',
    status: 500,
    means:
      'A walk module (`twinworld walk FILE`) threw while it ran; the message is what it threw, with the line of the throw when its stack names one.',
    fix: 'Fix the walk at the line named; a refusal of the kernel inside the walk keeps its own code instead.',
  },
  FILE_ACCESS_FAILED: {
    area: 'configuration and CLI',
    status: 500,
    means:
      'A command met a file-system error that no more specific check turned into its own refusal: a file or folder missing, not permitted, read-only, full, or too many files open. The message names the path, what was being done and what the OS said.',
    fix: 'Fix what the message names at that path (create the folder, give this user access, free space), then run the command again; a more specific refusal belongs there, so the command is worth reporting.',
  },
};

/** The HTTP status a host answers an error code with (see ERROR_CATALOG). */
export function errorHttpStatus(code: TwinErrorCode): number {
  // A code from outside the kernel's list (a driver's, passed through by mistake) is a 500.
  return Object.hasOwn(ERROR_CATALOG, code) ? ERROR_CATALOG[code].status : 500;
}
