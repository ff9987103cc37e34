// The serve configuration (file and flags), the serve host wired from it, and the trigger
// listing behind `twinworld triggers`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listTriggerRecords } from '../../src/triggers/list.js';
import { RECEIVED_TYPE } from '../../src/triggers/routines/record-routine.js';
import {
  configFromFlags,
  loadServeConfig,
  validateServeConfig,
} from '../../src/host/serve/config.js';
import { startServe, startTriggerRuntime } from '../../src/host/serve/serve.js';
import { recordId } from '../../src/triggers/trigger-records.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { NOW, SECRETS, stripePacket, T } from './packets.js';
import { collect, expectRefusal } from './support.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'twinworld-serve-'));
  dirs.push(d);
  return d;
}

const ENV = {
  STRIPE_SECRET: SECRETS.stripe,
  GH_SECRET: SECRETS.github,
  OLD_STRIPE: SECRETS.stripeOld,
  STD_SECRET: SECRETS.std,
  EMPTY: '  ',
};

const FILE_CONFIG = {
  tenants: [
    {
      id: 'acme',
      endpoints: [
        {
          provider: 'stripe',
          secretEnv: ['STRIPE_SECRET', 'OLD_STRIPE'],
          triggerId: 'stripe.events',
          toleranceSec: 120,
        },
        { provider: 'gh', scheme: 'github', secretEnv: 'GH_SECRET' },
      ],
      calendars: [
        {
          triggerId: 'nightly',
          cron: '0 3 * * *',
          timezone: 'Europe/London',
          catchUp: { kind: 'all', max: 3 },
        },
      ],
    },
    {
      id: 'globex',
      scopeId: 'globex-eu',
      endpoints: [{ provider: 'stripe', secretEnv: 'STRIPE_SECRET' }],
    },
  ],
  routes: [{ triggerId: 'stripe.events', routine: 'record', eventTypes: ['customer.created'] }],
};

describe('serve configuration', () => {
  it('loads a file: defaults filled in, routes completed with the record routine, secrets only named', () => {
    const file = join(dir(), 'serve.json');
    writeFileSync(file, JSON.stringify(FILE_CONFIG));
    const config = loadServeConfig(file, ENV);
    expect(config.tenants[0]).toMatchObject({
      id: 'acme',
      scopeId: 'acme',
      endpoints: [
        {
          provider: 'stripe',
          scheme: 'stripe',
          secretEnv: ['STRIPE_SECRET', 'OLD_STRIPE'],
          triggerId: 'stripe.events',
          toleranceSec: 120,
        },
        {
          provider: 'gh',
          scheme: 'github',
          secretEnv: ['GH_SECRET'],
          triggerId: 'gh.webhook',
          toleranceSec: null,
        },
      ],
      calendars: [
        {
          tenantId: 'acme',
          scopeId: 'acme',
          triggerId: 'nightly',
          cron: '0 3 * * *',
          timezone: 'Europe/London',
          catchUp: { kind: 'all', max: 3 },
          enabled: true,
        },
      ],
    });
    expect(config.tenants[1]).toMatchObject({
      id: 'globex',
      scopeId: 'globex-eu',
      endpoints: [{ triggerId: 'stripe.webhook' }],
    });
    expect(config.routes).toEqual([
      { triggerId: 'stripe.events', routine: 'record', eventTypes: ['customer.created'] },
      { triggerId: 'gh.webhook', routine: 'record', eventTypes: null },
      { triggerId: 'nightly', routine: 'record', eventTypes: null },
      { triggerId: 'stripe.webhook', routine: 'record', eventTypes: null },
    ]);
    expect(JSON.stringify(config)).not.toContain(SECRETS.stripe);
  });

  it('builds the common case from flags: tenant "default", provider=ENV_VAR or provider:scheme=ENV_VAR', () => {
    const config = configFromFlags(
      ['stripe=STRIPE_SECRET', 'acme:standard-webhooks=STD_SECRET'],
      ENV,
    );
    expect(config.tenants).toEqual([
      {
        id: 'default',
        scopeId: 'default',
        calendars: [],
        endpoints: [
          {
            provider: 'stripe',
            scheme: 'stripe',
            secretEnv: ['STRIPE_SECRET'],
            triggerId: 'stripe.webhook',
            toleranceSec: null,
            replayWindowSec: null,
          },
          {
            provider: 'acme',
            scheme: 'standard-webhooks',
            secretEnv: ['STD_SECRET'],
            triggerId: 'acme.webhook',
            toleranceSec: null,
            replayWindowSec: null,
          },
        ],
      },
    ]);
    expect(config.routes.map((r) => [r.triggerId, r.routine])).toEqual([
      ['acme.webhook', 'record'],
      ['stripe.webhook', 'record'],
    ]);
  });

  it.each([
    [['stripe'], 'endpoint[0]'],
    [['=X'], 'endpoint[0]'],
    [['stripe=NOT_SET'], 'endpoint[0]'],
    [['stripe=EMPTY'], 'endpoint[0]'],
    [['stripe=lower-case-bad'], 'endpoint[0]'],
    [['paypal=STRIPE_SECRET'], 'endpoint[0]'],
    [['stripe=STRIPE_SECRET', 'stripe=GH_SECRET'], 'endpoint[1]'],
    [['acme:nope=STRIPE_SECRET'], 'endpoint[0]'],
    [[], 'endpoint'],
  ])(
    'configFromFlags refuses %j (INVALID_CONFIG at %s) and never echoes a secret',
    async (flags, path) => {
      const e = await expectRefusal(() => configFromFlags(flags, ENV), 'INVALID_CONFIG', path);
      for (const s of Object.values(SECRETS)) expect(e.message).not.toContain(s);
    },
  );

  it('an --endpoint whose provider is not a scheme is told how to name one in the flag', async () => {
    const e = await expectRefusal(
      () => configFromFlags(['paypal=STRIPE_SECRET'], ENV),
      'INVALID_CONFIG',
      'endpoint[0]',
    );
    // Not "endpoint[0].scheme is missing": a flag has no scheme key.
    expect(e.message).toBe(
      '--endpoint "paypal=STRIPE_SECRET": "paypal" is not a signature scheme, so say which one its sender signs with: paypal:SCHEME=STRIPE_SECRET, SCHEME one of stripe, github, slack, standard-webhooks, hmac-sha256',
    );
  });

  it.each([
    ['stripe', 'whsec_W8hJd3GuETEkIBbXe864rkcqltcHSGO3'],
    ['standard-webhooks', 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ='],
    ['github', 'cb38c0227557d33aefd8bc4e5e6b370a126e4dd3'],
    ['slack', 'd41d8cd98f00b204e9800998ecf8427e'],
  ])(
    'an --endpoint given the %s secret itself, not a variable name, is told so without echoing it',
    async (provider, secret) => {
      const e = await expectRefusal(
        () => configFromFlags([`${provider}=${secret}`], ENV),
        'INVALID_CONFIG',
        'endpoint[0]',
      );
      expect(e.message).toMatch(
        /^endpoint\[0\]\.secretEnv takes the name of an environment variable holding the secret, and this looks like the secret itself \(not shown\): export it, e\.g\. STRIPE_WEBHOOK_SECRET=…, and name the variable \(--endpoint stripe=STRIPE_WEBHOOK_SECRET, /,
      );
      expect(e.message).not.toContain(secret);
      expect(e.message).not.toContain(secret.slice(6, 20));
    },
  );

  it('a secret given as "secretEnv" in a file is told so too; a variable that is set is used whatever its name', async () => {
    const secret = 'whsec_W8hJd3GuETEkIBbXe864rkcqltcHSGO3';
    const config = JSON.parse(JSON.stringify(FILE_CONFIG)) as typeof FILE_CONFIG;
    config.tenants[0]!.endpoints[0]!.secretEnv = [secret];
    const e = await expectRefusal(
      () => validateServeConfig(config, ENV),
      'INVALID_CONFIG',
      'tenants[0].endpoints[0].secretEnv[0]',
    );
    expect(e.message).toContain('looks like the secret itself');
    expect(e.message).not.toContain(secret);
    const named = 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5';
    expect(configFromFlags([`stripe=${named}`], { [named]: SECRETS.stripe }).tenants).toHaveLength(
      1,
    );
  });

  it('names the missing environment variable, not its value', async () => {
    const e = await expectRefusal(() => configFromFlags(['stripe=NOT_SET'], ENV), 'INVALID_CONFIG');
    expect(e.message).toContain('NOT_SET');
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a deliberately malformed copy
  const bad = (patch: (c: any) => unknown) => patch(JSON.parse(JSON.stringify(FILE_CONFIG)));
  it.each([
    [bad(() => []), ''],
    [bad((c) => ({ ...c, extra: 1 })), 'extra'],
    [bad((c) => ({ ...c, tenants: [] })), 'tenants'],
    [bad((c) => ({ ...c, tenants: {} })), 'tenants'],
    [bad((c) => ({ ...c, tenants: [c.tenants[0], c.tenants[0]] })), 'tenants[1].id'],
    [bad((c) => (((c.tenants[0] as { id: string }).id = 'a b'), c)), 'tenants[0].id'],
    [
      bad((c) => (((c.tenants[0] as Record<string, unknown>).secret = 'x'), c)),
      'tenants[0].secret',
    ],
    [
      bad((c) => ((c.tenants[0]!.endpoints[0]!.secretEnv = 'MISSING' as never), c)),
      'tenants[0].endpoints[0].secretEnv',
    ],
    [
      bad((c) => ((c.tenants[0]!.endpoints[0]!.secretEnv = ['STRIPE_SECRET', 'NOPE']), c)),
      'tenants[0].endpoints[0].secretEnv[1]',
    ],
    [
      bad((c) => (((c.tenants[0]!.endpoints[1] as Record<string, unknown>).scheme = 'paypal'), c)),
      'tenants[0].endpoints[1].scheme',
    ],
    [
      bad((c) => (((c.tenants[0]!.endpoints[0] as Record<string, unknown>).toleranceSec = -5), c)),
      'tenants[0].endpoints[0].toleranceSec',
    ],
    [
      bad(
        (c) => (
          ((c.tenants[0]!.endpoints[0] as Record<string, unknown>).secret = 'whsec_inline'),
          c
        ),
      ),
      'tenants[0].endpoints[0].secret',
    ],
    [
      bad((c) => ((c.tenants[0]!.endpoints[1]!.provider = 'stripe'), c)),
      'tenants[0].endpoints[1].provider',
    ],
    [
      bad((c) => ((c.tenants[0]!.calendars[0]!.timezone = 'Mars/Base'), c)),
      'tenants[0].calendars[0].timezone',
    ],
    [
      bad((c) => ((c.tenants[0]!.calendars[0]!.cron = '61 * * * *'), c)),
      'tenants[0].calendars[0].cron',
    ],
    [
      bad((c) => ((c.tenants[0]!.calendars[0]!.catchUp = { kind: 'all', max: 0 }), c)),
      'tenants[0].calendars[0].catchUp.max',
    ],
    [bad((c) => ((c.routes[0]!.routine = 'email'), c)), 'routes[0].routine'],
    [bad((c) => ((c.routes[0]!.triggerId = 'nobody.fires.this'), c)), 'routes[0].triggerId'],
    [bad((c) => ((c.routes[0]!.eventTypes = []), c)), 'routes[0].eventTypes'],
    [bad((c) => ({ ...c, routes: [c.routes[0], c.routes[0]] })), 'routes[1].triggerId'],
  ])('validateServeConfig refuses case %# at %s', async (config, path) => {
    const e = await expectRefusal(() => validateServeConfig(config, ENV), 'INVALID_CONFIG', path);
    expect(e.message.length).toBeGreaterThan(10);
  });

  it('can skip the secret check (for `twinworld tick`, which verifies nothing)', async () => {
    const file = join(dir(), 'serve.json');
    writeFileSync(file, JSON.stringify(FILE_CONFIG));
    await expectRefusal(
      () => loadServeConfig(file, {}),
      'INVALID_CONFIG',
      'tenants[0].endpoints[0].secretEnv[0]',
    );
    expect(loadServeConfig(file, {}, { checkSecrets: false }).tenants).toHaveLength(2);
  });

  it('refuses an unreadable or malformed file', async () => {
    const missing = await expectRefusal(
      () => loadServeConfig(join(dir(), 'missing.json'), ENV),
      'INVALID_CONFIG',
      'file',
    );
    // Was "(ENOENT)" alone: the OS's code, not what it means.
    expect(missing.message).toMatch(
      /missing\.json: there is no such file \(ENOENT\); check the path$/,
    );
    const folder = await expectRefusal(() => loadServeConfig(dir(), ENV), 'INVALID_CONFIG', 'file');
    expect(folder.message).toContain('it is a folder, not a file (EISDIR)');
    const file = join(dir(), 'bad.json');
    writeFileSync(file, '{ "tenants": [ ');
    await expectRefusal(() => loadServeConfig(file, ENV), 'INVALID_CONFIG', 'file');
    await expectRefusal(() => loadServeConfig('', ENV), 'INVALID_ARGUMENT', 'file');
  });
});

describe('the serve host', () => {
  it('takes webhooks per the config, records what the routine received, and lists every answer with its provider', async () => {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root: dir(), clock });
    const serve = await startServe({
      world,
      config: validateServeConfig(FILE_CONFIG, ENV),
      env: ENV,
      port: 0,
    });
    const send = (tenant: string, raw: string, headers = stripePacket(raw)) =>
      fetch(`${serve.host.url}/ingress/${tenant}/stripe`, { method: 'POST', headers, body: raw });
    const created = JSON.stringify({
      id: 'evt_s1',
      type: 'customer.created',
      created: T,
      data: { object: { id: 'cus_1' } },
    });
    const updated = JSON.stringify({
      id: 'evt_s2',
      type: 'customer.updated',
      created: T,
      data: { object: { id: 'cus_1' } },
    });
    expect((await send('acme', created)).status).toBe(200);
    expect(await (await send('acme', updated)).json()).toMatchObject({ status: 'filtered' });
    expect(await (await send('acme', created, stripePacket(created, T + 5))).json()).toMatchObject({
      status: 'duplicate',
    });
    expect(
      (
        await send(
          'acme',
          created,
          stripePacket(created, T, 'whsec_wrong0000000000000000000000000001'),
        )
      ).status,
    ).toBe(401);
    expect(await (await send('globex', created)).json()).toMatchObject({
      status: 'triggered',
      triggerId: 'stripe.webhook',
    });
    expect((await send('initech', created)).status).toBe(404);

    const received = (await world
      .twin('triggers')
      .get(RECEIVED_TYPE, recordId('acme', 'stripe:evt_s1')))!.fields;
    expect(received).toMatchObject({
      routineId: 'record',
      tenantId: 'acme',
      provider: 'stripe',
      triggerId: 'stripe.events',
      input: { eventType: 'customer.created', body: JSON.parse(created) },
    });
    expect(
      (await world.twin('triggers').get(RECEIVED_TYPE, recordId('globex', 'stripe:evt_s1')))!.fields
        .scopeId,
    ).toBe('globex-eu');

    const rows = await listTriggerRecords(world);
    // the duplicate is counted on the record it repeats (count 2), not listed as a row of its own
    expect(rows.map((r) => [r.tenantId, r.provider, r.status, r.code, r.count])).toEqual([
      ['globex', 'stripe', 'triggered', null, 1],
      ['acme', 'stripe', 'refused', 'BAD_SIGNATURE', 1],
      ['acme', 'stripe', 'filtered', null, 1],
      ['acme', 'stripe', 'triggered', null, 2],
    ]);
    expect(
      (await listTriggerRecords(world, { tenant: 'acme', limit: 2 })).map((r) => r.status),
    ).toEqual(['refused', 'filtered']);
    expect(await listTriggerRecords(world, { tenant: 'initech' })).toEqual([]);
    expect((await collect(world.twin('triggers').exportLines())).join('\n')).not.toContain(
      SECRETS.stripe,
    );

    // calendars: stored at startup, ticked by the host
    expect(await serve.calendar.subscription('acme', 'nightly')).toMatchObject({
      cron: '0 3 * * *',
      revision: 1,
    });
    await clock.set('2026-03-02T03:00:00.000Z');
    const [tick] = await serve.tick();
    expect(tick!.fired).toMatchObject([
      { triggerId: 'nightly', nominalAt: '2026-03-02T03:00:00.000Z', status: 'triggered' },
    ]);
    await serve.close();
    expect(world.isClosed).toBe(true);
  });

  it('at restart: keeps unchanged subscriptions (their cursors), recovers unfinished records, and ticks on its interval', async () => {
    const root = dir();
    const clock = new VirtualClock(NOW);
    const config = validateServeConfig(
      {
        tenants: [
          {
            id: 'acme',
            calendars: [
              {
                triggerId: 'hourly',
                cron: '0 * * * *',
                timezone: 'UTC',
                catchUp: { kind: 'all', max: 10 },
              },
            ],
          },
        ],
      },
      ENV,
    );
    const first = openWorld({ root, clock });
    const runtime = await startTriggerRuntime(first, config, { env: ENV });
    expect((await runtime.calendar.subscription('acme', 'hourly'))!.revision).toBe(1);
    await runtime.engine.stop();
    await first.close();

    await clock.set('2026-03-01T15:00:00.000Z'); // three occurrences fell due while down
    const world = openWorld({ root, clock });
    const serve = await startServe({ world, config, env: ENV, tickEveryMs: 20 });
    expect(await serve.calendar.subscription('acme', 'hourly')).toMatchObject({
      revision: 1,
      cursor: NOW,
    });
    expect(serve.recovered).toEqual([{ tenantId: 'acme', recovered: [], skipped: [] }]);
    await expect
      .poll(async () => (await serve.calendar.subscription('acme', 'hourly'))!.occurrences, {
        timeout: 5_000,
      })
      .toBe(3);
    await serve.close();
    const reopened = openWorld({ root });
    expect(
      (await listTriggerRecords(reopened)).map((r) => [r.sourceKind, r.provider, r.status]),
    ).toEqual([
      ['calendar', 'cron', 'triggered'],
      ['calendar', 'cron', 'triggered'],
      ['calendar', 'cron', 'triggered'],
    ]);
    await reopened.close();
  });

  it('listTriggerRecords refuses bad arguments and lists nothing for a world without triggers', async () => {
    const world = openWorld({ root: ':memory:' });
    expect(await listTriggerRecords(world)).toEqual([]);
    expect(await world.twinNames()).toEqual([]);
    await expectRefusal(
      async () => await listTriggerRecords(world, { limit: 0 }),
      'INVALID_ARGUMENT',
      'limit',
    );
    await expectRefusal(
      async () => await listTriggerRecords(world, { tenant: 'a b' }),
      'INVALID_ARGUMENT',
      'tenant',
    );
    await expectRefusal(
      () =>
        startServe({
          world,
          config: configFromFlags(['stripe=STRIPE_SECRET'], ENV),
          tickEveryMs: -1,
        }),
      'INVALID_ARGUMENT',
      'tickEveryMs',
    );
    await world.close();
  });
});
