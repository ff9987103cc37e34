// The protocol modules StrykerJS mutates, each with the test files that exercise it in-process
// (tests of the compiled CLI or of child processes cannot see a mutant, so they are left out),
// and the surviving mutants judged equivalent — each with the one-line reason it cannot be killed.
//
// An equivalent mutant is matched by its file, mutator, the original source text and the
// replacement, never by line number, so the list survives edits elsewhere in the file.

/**
 * @typedef {{ mutator: string, original: string, replacement: string, reason: string }} Equivalent
 * @typedef {{ mutate: string[], tests: string[], equivalent?: Equivalent[] }} MutationModule
 */

/** @type {Record<string, MutationModule>} */
export const MODULES = {
  retry: {
    mutate: ['src/events/retry.ts'],
    tests: [
      'test/events/dispatcher.test.ts',
      'test/events/retry-policy.test.ts',
      'test/events/send-once-promises.test.ts',
    ],
    equivalent: [
      {
        mutator: 'ConditionalExpression',
        original: "typeof d !== 'number'",
        replacement: 'false',
        reason: 'Number.isFinite is false for every non-number, so the typeof test adds nothing',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'status !== null',
        replacement: 'true',
        reason:
          'stopOnStatus holds validated integer statuses, so includes(null) is false with or without the guard',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'retryAfterSec !== undefined',
        replacement: 'true',
        reason: 'undefined * 1000 is NaN and NaN > delay is false: the guard changes nothing',
      },
      {
        mutator: 'EqualityOperator',
        original: 'retryAfterSec * 1000 > delay',
        replacement: 'retryAfterSec * 1000 >= delay',
        reason: 'when they are equal, setting delay to retryAfterSec * 1000 leaves it unchanged',
      },
    ],
  },
  'delivery-records': {
    mutate: ['src/events/delivery-records.ts'],
    tests: [
      'test/events/dispatcher.test.ts',
      'test/events/send-once-promises.test.ts',
      'test/events/delivery-records.test.ts',
    ],
    equivalent: [
      {
        mutator: 'ConditionalExpression',
        original: 'd.nextAttemptAt !== null',
        replacement: 'true',
        reason:
          'Date.parse(null) is NaN and NaN <= nowMs is false, so a retry without a time is refused either way',
      },
    ],
  },
  dispatcher: {
    mutate: ['src/events/dispatcher.ts'],
    tests: [
      'test/events/dispatcher.test.ts',
      'test/events/http-delivery.test.ts',
      'test/events/send-once-promises.test.ts',
      'test/events/trace-without-sdk.test.ts',
      'test/events/secret-rotation.test.ts',
      'test/events/delivery-edges.test.ts',
      'test/events/finish-identity.test.ts',
      'test/events/incomplete-packet.test.ts',
      'test/events/terminal-records-unindexed.test.ts',
      'test/work/worker.test.ts',
      'test/events/dispatcher-attempt.test.ts',
      'test/events/dispatcher-lifecycle.test.ts',
    ],
    equivalent: [
      {
        mutator: 'UpdateOperator',
        original: '++instances',
        replacement: '--instances',
        reason:
          "the counter only makes each dispatcher's hook name unique on its twin; counting down keeps them unique",
      },
      {
        mutator: 'ArrayDeclaration',
        original: '[]',
        replacement: '["Stryker was here"]',
        reason:
          "routes ?? []: a string route has no prefix and matches no URL; recover's runs: Promise.all takes a plain string as settled",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'result === undefined',
        replacement: 'false',
        reason:
          "in the claim's decide: a claim implies its record exists in the same view, so record is undefined exactly when result is",
      },
      {
        mutator: 'LogicalOperator',
        original: 'result === undefined || record === undefined',
        replacement: 'result === undefined && record === undefined',
        reason:
          'the record is read only with a claim, and a claim implies the record, so both sides are always equal',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'record === undefined',
        replacement: 'false',
        reason:
          'the record is undefined only when the claim is, and result === undefined already answers that case',
      },
      {
        mutator: 'ConditionalExpression',
        original: "d.state !== 'sending'",
        replacement: 'false',
        reason:
          'claim and finish move record and attempt together, so a record not sending has no attempt sending and the finish skips without a write',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'd.currentAttempt === null',
        replacement: 'false',
        reason:
          'without the guard the claim names attempt null, which decideAttemptFinish does not find, so it skips without a write just the same',
      },
      {
        mutator: 'StringLiteral',
        original: "'first'",
        replacement: '""',
        reason:
          "takeOver's claim kind is never read: decideAttemptFinish uses only the attempt id and owner",
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof started === 'string'",
        replacement: 'true',
        reason:
          'startedAt is an ISO string or absent; Date.parse of absent is NaN and NaN + staleAfterMs > now is false, as with the guard',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'state !== STALE',
        replacement: 'true',
        reason:
          "takeOver's claim has no owner, and decideAttemptFinish answers STALE only to a claim with an owner",
      },
      {
        mutator: 'ConditionalExpression',
        original: "d.state === 'sending'",
        replacement: 'true',
        reason:
          'takeOver of a record not sending skips without a write and answers false, so runDue answers undefined either way',
      },
      {
        mutator: 'OptionalChaining',
        original: 'this.defaultTransport.close?.()',
        replacement: 'this.defaultTransport.close()',
        reason:
          'it runs only when the dispatcher made its default transport, always an HttpTransport, which has close()',
      },
      {
        mutator: 'ArrowFunction',
        original: '() => isoAt(this.world.clock.now())',
        replacement: '() => undefined',
        reason:
          "the dispatcher's decisions read the world clock themselves and never the group commit's time argument",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'retryAt === undefined',
        replacement: 'false',
        reason:
          'the Finish then carries retryAt: undefined, and its one reader (decideAttemptFinish) asks retryAt !== undefined; a Finish is never serialized',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'retryAt !== undefined',
        replacement: 'true',
        reason:
          'decideAttemptFinish answers retrying only when the finish carries a retryAt, so the second test always holds after the first',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'this.closed',
        replacement: 'false',
        reason:
          "in the retry's clock callback: close() sets closed and cancels every pending retry in one synchronous step, so the callback never runs once closed",
      },
    ],
  },
  'fan-out': {
    mutate: ['src/events/fan-out.ts'],
    tests: [
      'test/events/fan-out.test.ts',
      'test/events/outbox-same-commit.test.ts',
      'test/events/dispatcher.test.ts',
      'test/events/fan-out-promises.test.ts',
      'test/events/endpoint-match.test.ts',
      'test/events/trace-without-sdk.test.ts',
    ],
    equivalent: [
      {
        mutator: 'EqualityOperator',
        original: 'a.endpoint.id < b.endpoint.id',
        replacement: 'a.endpoint.id <= b.endpoint.id',
        reason: 'an endpoint is taken once (the seen set), so two of one kind never share an id',
      },
      {
        mutator: 'EqualityOperator',
        original: 'a.kind.type < b.kind.type',
        replacement: 'a.kind.type <= b.kind.type',
        reason: 'this branch runs only when the kind types differ, so they are never equal',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'messageId === undefined',
        replacement: 'false',
        reason: 'a messageId key holding undefined reads as absent: the record falls back with ??',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'trace === null',
        replacement: 'true',
        reason:
          'the active trace cannot change inside one synchronous withinCommit, so capturing it per entry gives the same',
      },
    ],
  },
  'trigger-records': {
    mutate: [
      'src/triggers/trigger-records.ts',
      'src/triggers/receive.ts',
      'src/triggers/runs.ts',
      'src/triggers/receipts.ts',
    ],
    tests: [
      'test/triggers/engine.test.ts',
      'test/triggers/recovery.test.ts',
      'test/triggers/webhook-ingress.test.ts',
      'test/triggers/replay.test.ts',
      'test/triggers/trigger-record-promises.test.ts',
    ],
    equivalent: [
      {
        mutator: 'StringLiteral',
        original: "''",
        replacement: '"Stryker was here!"',
        reason: 'both callers of receiptWrite replace its subjectId with receiptId(seq)',
      },
      {
        mutator: 'StringLiteral',
        original: "'claimed'",
        replacement: '""',
        reason: "the engine tells a claim apart as neither 'answered' nor 'conflict'",
      },
      {
        mutator: 'ConditionalExpression',
        original: "record.state === 'triggered'",
        replacement: 'true',
        reason: 'a filtered record never ran, so its result is null either way',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'record.startedAt !== null',
        replacement: 'true',
        reason:
          'null > an ISO string compares NaN and is false, so a missing start time is free either way',
      },
    ],
  },
  'trigger-engine': {
    mutate: [
      'src/triggers/engine/engine.ts',
      'src/triggers/engine/ingest.ts',
      'src/triggers/engine/run-claimed.ts',
      'src/triggers/engine/recover.ts',
    ],
    tests: [
      'test/triggers/engine.test.ts',
      'test/triggers/recovery.test.ts',
      'test/triggers/webhook-ingress.test.ts',
      'test/triggers/pack-ingress.test.ts',
      'test/triggers/trigger-record-promises.test.ts',
      'test/triggers/refusals-and-retention.test.ts',
      'test/triggers/runtime.test.ts',
      'test/triggers/ingress-host.test.ts',
      'test/triggers/replay.test.ts',
      'test/triggers/engine-lifecycle.test.ts',
      'test/triggers/engine-runs-and-recovery.test.ts',
    ],
    equivalent: [
      {
        mutator: 'ConditionalExpression',
        original: 'dispatch !== undefined',
        replacement: 'true',
        reason:
          'dispatchOptions is only read with get(): storing undefined for a route without dispatch options reads the same as not storing it',
      },
      {
        mutator: 'StringLiteral',
        original: "'stopping'",
        replacement: '""',
        reason:
          "no code compares the state with 'stopping': every check asks for 'running', 'new' or 'stopped', so any other name acts alike",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'cause === undefined',
        replacement: 'false',
        reason:
          'TwinError hands a cause to Error only when it is defined, so {cause: undefined} builds the same error as {}',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'deltas.length === 0',
        replacement: 'false',
        reason:
          'an empty batch commits no writes: applyAtomic appends no entry and calls no hook, so log and state are the same',
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof staleAfterMs !== 'number'",
        replacement: 'false',
        reason:
          'Number.isSafeInteger is false for every non-number, so the next test refuses the same values with the same error',
      },
      {
        mutator: 'ConditionalExpression',
        original: "seen.state !== 'processing'",
        replacement: 'false',
        reason:
          'decideRecover skips a record whose state is not the one it was read in, writing nothing, so takeOver still answers undefined',
      },
      {
        mutator: 'OptionalChaining',
        original: 'error.details?.error',
        replacement: 'error.details.error',
        reason:
          'the only ROUTINE_FAILED that reaches this catch comes from runClaimed, which always sets details',
      },
      {
        mutator: 'StringLiteral',
        original: "'ROUTINE_FAILED'",
        replacement: '""',
        reason:
          "in recoverOne's fallback: runClaimed's ROUTINE_FAILED always carries details.error (an errorCode, never empty), so the fallback never applies",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'options === null',
        replacement: 'false',
        reason:
          'stop and recoverIncomplete turn a null or absent options argument into {} before checkOptions sees it',
      },
      {
        mutator: 'StringLiteral',
        original: "', '",
        replacement: '""',
        reason:
          "checkOptions' two messages: both callers allow exactly one key, so the separator of the join never appears",
      },
      {
        mutator: 'StringLiteral',
        original: "'utf8'",
        replacement: '""',
        reason:
          "Buffer.byteLength reads an empty encoding as utf8 (byteLength('é', '') is 2 on Node 20)",
      },
    ],
  },
  'calendar-occurrences': {
    mutate: ['src/triggers/cron/occurrences.ts'],
    tests: [
      'test/triggers/calendar/occurrences.test.ts',
      'test/triggers/calendar/catch-up.test.ts',
      'test/triggers/calendar/oracle.test.ts',
      'test/triggers/calendar/zone.test.ts',
      'test/triggers/calendar/pattern-rules.test.ts',
      'test/triggers/calendar/occurrences-refusals.test.ts',
    ],
    equivalent: [
      {
        mutator: 'BooleanLiteral',
        original: 'true',
        replacement: 'false',
        reason:
          'paused: a croner job without a callback never starts a timer, paused or not; `oldest.done !== true`: the cache eviction, see below',
      },
      {
        mutator: 'ObjectLiteral',
        original:
          "{\n    paused: true,\n    utcOffset: 0,\n    mode: '5-or-6-parts',\n    domAndDow: false,\n    alternativeWeekdays: false,\n    sloppyRanges: false,\n    fixedTimeRule: 'single-value',\n  }",
        replacement: '{}',
        reason:
          "differs from croner's defaults only by utcOffset (the host zone): pattern-rules.test.ts switches TZ under the suite's forks, which Stryker's worker threads cannot",
      },
      {
        mutator: 'Regex',
        original: '/^CronPattern:\\s*/',
        replacement: '/CronPattern:\\s*/',
        reason:
          "croner's messages start with the prefix, and a non-global replace takes the first match",
      },
      {
        mutator: 'Regex',
        original: '/^CronPattern:\\s*/',
        replacement: '/^CronPattern:\\s/',
        reason: "croner's messages have exactly one space after the prefix",
      },
      {
        mutator: 'LogicalOperator',
        original: 'matchers.get(cron) ?? compileCron(cron)',
        replacement: 'matchers.get(cron) && compileCron(cron)',
        reason:
          'validateCalendarSpec has always cached the pattern first, so this only recompiles an identical matcher',
      },
      {
        mutator: 'ConditionalExpression',
        original: '!matchers.has(cron)',
        replacement: 'true',
        reason: 'compiling a cached pattern again gives an identical matcher (only slower)',
      },
      {
        mutator: 'BlockStatement',
        original:
          '{\n    const oldest = matchers.keys().next();\n    if (oldest.done !== true) matchers.delete(oldest.value);\n  }',
        replacement: '{}',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'oldest.done !== true',
        replacement: 'true',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'oldest.done !== true',
        replacement: 'false',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'EqualityOperator',
        original: 'oldest.done !== true',
        replacement: 'oldest.done === true',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'matchers.size >= MATCHER_CACHE_SIZE',
        replacement: 'true',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'matchers.size >= MATCHER_CACHE_SIZE',
        replacement: 'false',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'EqualityOperator',
        original: 'matchers.size >= MATCHER_CACHE_SIZE',
        replacement: 'matchers.size > MATCHER_CACHE_SIZE',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'EqualityOperator',
        original: 'matchers.size >= MATCHER_CACHE_SIZE',
        replacement: 'matchers.size < MATCHER_CACHE_SIZE',
        reason:
          'the matcher cache only saves recompiling a pattern: the occurrences are the same whichever matchers it holds',
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof value === 'number'",
        replacement: 'true',
        reason:
          'Number.isSafeInteger is false for every non-number, so the typeof test adds nothing',
      },
      {
        mutator: 'ConditionalExpression',
        original: "resolved.kind === 'normal'",
        replacement: 'false',
        reason:
          "a normal wall time's instant reads back as that wall time, so the gap branch also says normal",
      },
      {
        mutator: 'StringLiteral',
        original: "'normal'",
        replacement: '""',
        reason:
          "a normal wall time's instant reads back as that wall time, so the gap branch also says normal",
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof limit !== 'number'",
        replacement: 'false',
        reason:
          'Number.isSafeInteger is false for every non-number, so the typeof test adds nothing',
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof max !== 'number'",
        replacement: 'false',
        reason:
          'Number.isSafeInteger is false for every non-number, so the typeof test adds nothing',
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof at !== 'number'",
        replacement: 'false',
        reason: 'Number.isFinite is false for every non-number, so the typeof test adds nothing',
      },
    ],
  },
  'calendar-source': {
    mutate: [
      'src/triggers/calendar/calendar-source.ts',
      'src/triggers/calendar/decide-due.ts',
      'src/triggers/calendar/occurrence-record.ts',
    ],
    tests: [
      'test/triggers/calendar-source.test.ts',
      'test/triggers/calendar/reconfigure-promises.test.ts',
      'test/triggers/calendar/tick-promises.test.ts',
      'test/triggers/tenant-context.test.ts',
      'test/work/calendar-work.test.ts',
    ],
    equivalent: [
      {
        mutator: 'EqualityOperator',
        original: 'triggerOf(a) < triggerOf(b)',
        replacement: 'triggerOf(a) <= triggerOf(b)',
        reason:
          "trigger ids are distinct, and V8's sort only asks whether the comparator is below 0, so 0 and 1 order alike",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'triggerOf(a) > triggerOf(b)',
        replacement: 'true',
        reason:
          "trigger ids are distinct, and V8's sort only asks whether the comparator is below 0, so 0 and 1 order alike",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'triggerOf(a) > triggerOf(b)',
        replacement: 'false',
        reason:
          "trigger ids are distinct, and V8's sort only asks whether the comparator is below 0, so 0 and 1 order alike",
      },
      {
        mutator: 'EqualityOperator',
        original: 'triggerOf(a) > triggerOf(b)',
        replacement: 'triggerOf(a) >= triggerOf(b)',
        reason:
          "trigger ids are distinct, and V8's sort only asks whether the comparator is below 0, so 0 and 1 order alike",
      },
      {
        mutator: 'EqualityOperator',
        original: 'triggerOf(a) > triggerOf(b)',
        replacement: 'triggerOf(a) <= triggerOf(b)',
        reason:
          "trigger ids are distinct, and V8's sort only asks whether the comparator is below 0, so 0 and 1 order alike",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'resource === undefined || resource.deleted',
        replacement: 'false',
        reason:
          "the id comes from the tenant's index lookup and no operation deletes a subscription, so the resource is always there",
      },
      {
        mutator: 'LogicalOperator',
        original: 'resource === undefined || resource.deleted',
        replacement: 'resource === undefined && resource.deleted',
        reason:
          "the id comes from the tenant's index lookup and no operation deletes a subscription, so the resource is always there",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'resource === undefined',
        replacement: 'false',
        reason:
          "the id comes from the tenant's index lookup and no operation deletes a subscription, so the resource is always there",
      },
      {
        mutator: 'OptionalChaining',
        original: 'e.details?.recordId',
        replacement: 'e.details.recordId',
        reason:
          'every caught error carries details except a PAYLOAD_CONFLICT that only a SHA-256 collision can raise',
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof value !== 'number'",
        replacement: 'false',
        reason:
          'Number.isSafeInteger is false for every non-number, so the typeof test adds nothing',
      },
      {
        mutator: 'EqualityOperator',
        original: 'nowMs <= cursorMs',
        replacement: 'nowMs < cursorMs',
        reason:
          'at now == cursor the range (cursor, now] holds no occurrence, so nothing is decided either way',
      },
      {
        mutator: 'ArrayDeclaration',
        original: '[]',
        replacement: '["Stryker was here"]',
        reason:
          'fire is only read through firing.has(occurrence), which a stray string never matches',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'o.leaseUntil !== null',
        replacement: 'true',
        reason:
          'Date.parse(null) is NaN and NaN > nowMs is false, so a missing lease is claimable either way',
      },
    ],
  },
  fold: {
    mutate: ['src/state/resource.ts'],
    tests: [
      'test/world/atomic.test.ts',
      'test/world/durable-state.test.ts',
      'test/log/store-conformance.test.ts',
      'test/state/frozen-resources.test.ts',
      'test/state/fold.test.ts',
    ],
    equivalent: [],
  },
  'canonical-json': {
    mutate: ['src/log/canonical-json.ts'],
    tests: ['test/log/canonical-json.test.ts', 'test/state/fold.test.ts'],
    equivalent: [
      {
        mutator: 'ArrayDeclaration',
        original: '[]',
        replacement: '["Stryker was here"]',
        reason: 'the cycle stack holds objects only, so a string in it never matches',
      },
      {
        mutator: 'EqualityOperator',
        original: 'previous < key',
        replacement: 'previous <= key',
        reason: "an object's keys are distinct, so no two are ever equal",
      },
    ],
  },
  'state-hash': {
    mutate: ['src/state/state-hash.ts'],
    tests: [
      'test/log/store-conformance.test.ts',
      'test/log/fixtures.test.ts',
      'test/state/state-hash.test.ts',
    ],
    equivalent: [
      {
        mutator: 'ConditionalExpression',
        original: 'a === b',
        replacement: 'false',
        reason:
          'a fast path: for equal keys the loop finds no difference and the length difference is 0',
      },
    ],
  },
  replay: {
    mutate: ['src/world/replay.ts'],
    tests: [
      'test/log/jsonl-import.test.ts',
      'test/log/fixtures.test.ts',
      'test/world/replay-gap.test.ts',
      'test/world/replay-promises.test.ts',
    ],
    equivalent: [
      {
        mutator: 'ConditionalExpression',
        original: '!r.deleted',
        replacement: 'true',
        reason: 'stateHash skips deleted resources itself, so passing them changes no hash',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'raw.length === 0',
        replacement: 'false',
        reason:
          "an empty line also passes the whitespace test (charCodeAt is NaN, trim is ''), so it is skipped either way",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'raw.charCodeAt(0) !== 0x7b',
        replacement: 'true',
        reason:
          "a fast path: a line starting with '{' is never blank, so trimming it too changes nothing",
      },
      {
        mutator: 'ConditionalExpression',
        original: 'Symbol.iterator in lines',
        replacement: 'false',
        reason: 'for await walks a sync iterable as well, only slower',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'error.path !== undefined',
        replacement: 'true',
        reason: 'validateEntry gives every refusal a path',
      },
      {
        mutator: 'LogicalOperator',
        original: 'error instanceof TwinError && error.path !== undefined',
        replacement: 'error instanceof TwinError || error.path !== undefined',
        reason:
          'a JSON SyntaxError has no path, and validateEntry gives every refusal one, so || and && agree',
      },
    ],
  },
  'signing-scheme': {
    mutate: ['src/events/signing/scheme.ts'],
    tests: ['test/events/signing/*.test.ts'],
    equivalent: [
      {
        mutator: 'ConditionalExpression',
        original: "typeof value === 'string'",
        replacement: 'true',
        reason:
          'includes() finds no non-string among the scheme names, so the typeof test adds nothing',
      },
      {
        mutator: 'StringLiteral',
        original: "'utf8'",
        replacement: '""',
        reason: 'Buffer.from treats an empty encoding name as utf8',
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof req.nowSec !== 'number'",
        replacement: 'false',
        reason: 'Number.isFinite is false for every non-number, so the typeof test adds nothing',
      },
      {
        mutator: 'ConditionalExpression',
        original: "typeof toleranceSec !== 'number'",
        replacement: 'false',
        reason: 'Number.isFinite is false for every non-number, so the typeof test adds nothing',
      },
      {
        mutator: 'ConditionalExpression',
        original: 'value === undefined',
        replacement: 'false',
        reason: 'an undefined value is not a string, so the loop below skips it anyway',
      },
      {
        mutator: 'MethodExpression',
        original: 'value.trim()',
        replacement: 'value',
        reason:
          'every caller passes a trimmed value (singleHeader trims, Stripe trims each element)',
      },
      {
        mutator: 'EqualityOperator',
        original: 'skew > 0',
        replacement: 'skew >= 0',
        reason:
          'a skew of 0 is within any tolerance (never negative), so it never reaches the message',
      },
    ],
  },
  'signing-stripe': {
    mutate: ['src/events/signing/stripe.ts'],
    tests: [
      'test/events/signing/stripe.test.ts',
      'test/events/signing/stripe-rotation.test.ts',
      'test/events/signing/stripe-refusals.test.ts',
    ],
    equivalent: [
      {
        mutator: 'EqualityOperator',
        original: 'eq < 0',
        replacement: 'eq <= 0',
        reason:
          'an element starting with "=" has an empty prefix, which is neither t nor v1, so it is skipped either way',
      },
    ],
  },
  'signing-github': {
    mutate: ['src/events/signing/github.ts'],
    tests: ['test/events/signing/github.test.ts', 'test/events/signing/github-refusals.test.ts'],
    equivalent: [],
  },
  'signing-slack': {
    mutate: ['src/events/signing/slack.ts', 'src/events/signing/timestamped-hmac.ts'],
    tests: [
      'test/events/signing/slack.test.ts',
      'test/events/signing/hmac-sha256.test.ts',
      'test/events/signing/slack-refusals.test.ts',
    ],
    equivalent: [],
  },
  'signing-standard-webhooks': {
    mutate: ['src/events/signing/standard-webhooks.ts'],
    tests: [
      'test/events/signing/standard-webhooks.test.ts',
      'test/events/signing/standard-webhooks-refusals.test.ts',
    ],
    equivalent: [
      {
        mutator: 'ConditionalExpression',
        original: 'key.length === 0',
        replacement: 'false',
        reason:
          'an empty key re-encodes to "", never the non-empty text the base64 pattern let through, so the round-trip check refuses it with the same message',
      },
      {
        mutator: 'Regex',
        original: '/\\s+/',
        replacement: '/\\s/',
        reason:
          'splitting on single whitespace only adds empty entries, which have no comma and are skipped',
      },
      {
        mutator: 'EqualityOperator',
        original: 'comma > 0',
        replacement: 'comma >= 0',
        reason:
          'an entry starting with "," has an empty version, which is not v1, so it is skipped either way',
      },
    ],
  },
};
