// LISTEN/NOTIFY for idle workers (docs/throughput.md, "Wake-ups"): a commit that makes work due now notifies one
// channel with its world and twin, and each backend keeps one listening connection, outside the pool,
// for whoever in the process subscribed. A hint, never the only way work is found: a notification
// sent while the listener was reconnecting is lost, and the worker's poll finds that work instead.
import type pg from 'pg';
import type { Connection } from './connection.js';
import { lit } from './sql-text.js';

const WAKE_CHANNEL = 'twinworld_wake';
/** How long a lost listening connection waits before it is opened again (wall time: I/O pacing). */
const RECONNECT_MS = 1_000;

/** The statement a waking commit carries before COMMIT; the server delivers it only if it commits. */
export function notifyStatement(world: string, twin: string): string {
  // World and twin names hold no space (backend.ts checks them), so the first space splits them.
  return `SELECT pg_notify(${lit(WAKE_CHANNEL)}, ${lit(`${world} ${twin}`)})`;
}

export class WakeListener {
  private readonly listeners = new Set<(twin: string) => void>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly conn: Connection,
    private readonly world: string,
  ) {}

  /** Resolves once the connection listens (rejects if it cannot connect); the answer unsubscribes. */
  async subscribe(onWake: (twin: string) => void): Promise<() => Promise<void>> {
    this.listeners.add(onWake);
    try {
      await this.connect();
    } catch (error) {
      this.listeners.delete(onWake);
      throw error;
    }
    return async () => {
      this.listeners.delete(onWake);
      if (this.listeners.size === 0) await this.stop();
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.stop();
  }

  private connect(): Promise<void> {
    if (this.client !== undefined) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = await this.conn.direct();
      client.on('notification', (message) => this.deliver(message.payload));
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      try {
        await client.query(`LISTEN ${WAKE_CHANNEL}`);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      if (this.closed || this.listeners.size === 0) await client.end().catch(() => {});
      else this.client = client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private deliver(payload: string | undefined): void {
    const space = payload?.indexOf(' ') ?? -1;
    if (space < 0 || payload!.slice(0, space) !== this.world) return;
    const twin = payload!.slice(space + 1);
    for (const listener of [...this.listeners]) listener(twin);
  }

  /** The listening connection went away: open another while anyone still listens. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => {});
    this.reconnectLater();
  }

  private reconnectLater(): void {
    if (this.closed || this.listeners.size === 0 || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.closed || this.listeners.size === 0) return;
      this.connect().catch(() => this.reconnectLater());
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private async stop(): Promise<void> {
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.retry = undefined;
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
