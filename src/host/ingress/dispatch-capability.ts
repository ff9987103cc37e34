// Who may read a dispatch over HTTP: whoever holds the capability in the 202's Location. A dispatch id
// is derived from the tenant, the delivery id and a counter, so it proves nothing; the capability is an
// HMAC of the id under a key of the world that never enters a log, kept in the world's secret store so
// every host serving the world issues and accepts the same ones. The key is drawn at random the first
// time a host needs it — outside the log, so walks stay byte-identical — and added by rotation, so two
// hosts drawing one at the same moment both keep theirs valid (and both sign with the first).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { checkWorld } from '../../errors.js';
import type { World } from '../../world/world.js';
import { dispatchLocation } from '../../triggers/deferred/dispatch-status.js';

/** The secret store reference of the world's dispatch capability key. */
export const CAPABILITY_REF = 'twinworld:dispatch-capability';
/** The query parameter a Location carries the capability in. */
export const CAPABILITY_PARAM = 'key';
/** A key never expires: it is only ever added to, by a host that found none. */
const FOREVER_MS = 100 * 365 * 86_400_000;

function mac(key: string, id: string): Buffer {
  return createHmac('sha256', key).update(`dispatch\u0000${id}`).digest();
}

export class DispatchCapabilities {
  private keys: readonly string[] | undefined;

  constructor(private readonly world: World) {
    checkWorld('new DispatchCapabilities(world)', world);
  }

  private async load(): Promise<readonly string[]> {
    const now = this.world.clock.now();
    return (await this.world.secrets.resolve(CAPABILITY_REF, now)).filter((k) => k !== '');
  }

  /** The world's keys, newest first; the first call of the world's first host draws one. */
  private async current(): Promise<readonly string[]> {
    if (this.keys !== undefined && this.keys.length > 0) return this.keys;
    let keys = await this.load();
    if (keys.length === 0) {
      const now = this.world.clock.now();
      await this.world.secrets.rotate(
        CAPABILITY_REF,
        randomBytes(32).toString('base64url'),
        now,
        FOREVER_MS,
      );
      keys = await this.load();
    }
    this.keys = keys;
    return keys;
  }

  /**
   * Where a 202 for this dispatch points: its path with the capability to read it. Signed with the
   * world's oldest key, the first ever added, which every host sees once it has loaded any: so every
   * host hands out the same Location for one dispatch.
   */
  async location(id: string): Promise<string> {
    const keys = await this.current();
    const token = mac(keys[keys.length - 1]!, id).toString('base64url');
    return `${dispatchLocation(id)}?${CAPABILITY_PARAM}=${token}`;
  }

  /** Whether `token` is the capability of dispatch `id` under any of the world's keys. */
  async verify(id: string, token: string | null): Promise<boolean> {
    if (token === null || !/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
    const given = Buffer.from(token, 'base64url');
    const matches = (keys: readonly string[]) =>
      keys.some((key) => timingSafeEqual(mac(key, id), given));
    if (matches(await this.current())) return true;
    // Another host may have added a key since this one loaded them.
    this.keys = await this.load();
    return matches(this.keys);
  }
}
