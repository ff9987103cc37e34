// A walk report as text for people: each delivery with its numbered attempts, each receiver's
// tally, each trigger decision, the trace ids and the state hashes; wall-clock times last, apart
// from everything the log holds.
import type { DeliveryReport, WalkReport } from './report.js';
import { formatTriggers } from './trigger-report.js';

export interface FormatOptions {
  /** First line, e.g. "twinworld demo". */
  readonly title?: string;
  /** Extra lines under the title (where the ingress host listened, …). */
  readonly notes?: readonly string[];
}

/** "2026-03-02T09:14:23.162Z" → "2026-03-02 09:14:23.162" (UTC, as the world clock keeps it). */
function shortTime(iso: string | null): string {
  if (iso === null) return '-';
  const [date, rest = ''] = iso.split('T');
  return `${date} ${rest.replace(/Z$/, '')}`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function target(d: DeliveryReport): string {
  if (d.receiver !== null) return `receiver ${d.receiver}`;
  // A mounted server by its stable name: "ingress /ingress/demo/stripe".
  const mounted = /^http:\/\/([a-z0-9-]+)\.walk\.invalid(\/.*)?$/.exec(d.url);
  if (mounted !== null) return `${mounted[1]} ${mounted[2] ?? '/'}`;
  return d.url;
}

function delivery(d: DeliveryReport, wall: Record<string, number>): string[] {
  const n = d.attempts.length;
  const summary = `${d.state}${n > 1 ? ` after ${n} attempts` : ''}${d.nextAttemptAt === null ? '' : `, next attempt ${shortTime(d.nextAttemptAt)}`}`;
  const lines = [`  ${d.pack} ${d.eventType} ${d.eventId} → ${target(d)}: ${summary}`];
  for (const a of d.attempts) {
    const ms = wall[`${d.id}.${a.number}`];
    const status = a.status === null ? '---' : String(a.status);
    lines.push(
      `    #${a.number} ${pad(a.kind, 9)} ${shortTime(a.startedAt)}  ${pad(a.state, 9)} ${status}  ${pad(a.reason ?? '-', 16)}${ms === undefined ? '' : ` ${ms.toFixed(1)} ms wall`}`,
    );
  }
  if (d.traceId !== null) {
    const hops = d.attempts
      .map((a) => a.traceparent?.split('-')[2])
      .filter((s): s is string => s !== undefined);
    lines.push(`    trace ${d.traceId}${hops.length > 0 ? ` (hops ${hops.join(', ')})` : ''}`);
  }
  return lines;
}

export function formatReport(report: WalkReport, options: FormatOptions = {}): string {
  const out: string[] = [];
  out.push(
    `${options.title ?? 'twinworld walk'} — seed ${report.seed}, virtual clock ${shortTime(report.clock.start)} → ${shortTime(report.clock.now)} UTC`,
  );
  for (const note of options.notes ?? []) out.push(note);
  out.push('');
  const attempts = report.deliveries.reduce((sum, d) => sum + d.attempts.length, 0);
  out.push(
    `Deliveries: ${report.deliveries.length}, ${attempts} attempts (times on the world clock, UTC)`,
  );
  if (report.deliveries.length === 0) out.push('  (none)');
  for (const d of report.deliveries) out.push(...delivery(d, report.wall.attemptMs));
  if (report.receivers.length > 0) {
    out.push('');
    out.push('Receivers (fault-injecting, in process):');
    for (const r of report.receivers) {
      out.push(
        `  ${pad(r.name, 12)} ${r.requests} requests, ${r.accepted} accepted${r.unanswered > 0 ? `, ${r.unanswered} unanswered` : ''}${r.acceptedButUnknown > 0 ? ` (${r.acceptedButUnknown} accepted though the sender saw no answer)` : ''}; answered ${r.answers.join(', ') || '-'}`,
      );
    }
  }
  const triggers = formatTriggers(report.triggers);
  if (triggers.length > 0) out.push('', ...triggers);
  out.push('');
  out.push(`State hashes (${report.entries} log entries; replaying the log reaches the same):`);
  const width = Math.max(0, ...Object.keys(report.hashes).map((k) => k.length));
  for (const [twin, hash] of Object.entries(report.hashes))
    out.push(`  ${pad(twin, width)}  ${hash}`);
  out.push('');
  out.push(
    `Wall clock (beside the log, never in it): ${(report.wall.totalMs / 1000).toFixed(2)} s`,
  );
  return `${out.join('\n')}\n`;
}
