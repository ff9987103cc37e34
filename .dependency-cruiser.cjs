// Architecture rules, checked by `npm run lint` (docs/architecture.md): layers import downward,
// no import circles (modules here; folders in .dependency-cruiser-folders.cjs), the trigger
// layer's own order (core, cron/, one area per folder, the engine on top), database drivers only
// in src/storage/, packs only through public entries.
// The package's public entry points (package.json "exports"): all a pack may import.
const PUBLIC_ENTRIES =
  '^src/(index|testing|events/signing/index|triggers/index|triggers/schedules/index|triggers/deferred/index|walk/index|host/index|storage/sqlite/index|storage/postgres/index)[.]ts$';

const layers = [
  'log',
  'state',
  'storage',
  'world',
  'work',
  'events',
  'triggers',
  'host',
  'walk',
  'cli',
];

const upward = layers.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer}-imports-upward`,
  comment: `src/${layer}/ may import only layers below it: ${layers.slice(0, i).join(', ') || '(none)'}`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${layers.slice(i + 1).join('|')})/` },
}));

// Inside src/triggers/: the core (envelopes, records, answers, contexts, defaults: the files at
// the top) ← cron/ (pure arithmetic) ← the areas (calendar/, webhook/, schedules/, deferred/,
// routines/), which know neither each other nor the engine ← engine/, which composes them. Sources
// see the engine through SourceHost, deferred/ through DispatchHost.
const TRIGGER_TOP = '^src/triggers/(engine/|index[.]ts$)';
const TRIGGER_AREA = '^src/triggers/(?!engine/)([^/]+)/';
const triggerRules = [
  {
    name: 'triggers-core-imports-up',
    comment:
      'the trigger core (files at the top of src/triggers/) imports no area and not the engine',
    severity: 'error',
    from: { path: '^src/triggers/[^/]+[.]ts$', pathNot: '^src/triggers/index[.]ts$' },
    to: { path: '^src/triggers/[^/]+/' },
  },
  {
    name: 'triggers-area-imports-engine',
    comment:
      'an area of src/triggers/ sees the engine only through an interface (SourceHost, DispatchHost)',
    severity: 'error',
    from: { path: TRIGGER_AREA },
    to: { path: TRIGGER_TOP },
  },
  {
    name: 'triggers-area-imports-area',
    comment:
      'the areas of src/triggers/ are independent; what two share lives in the core or in cron/',
    severity: 'error',
    from: { path: TRIGGER_AREA },
    to: { path: '^src/triggers/[^/]+/', pathNot: '^src/triggers/($1|cron|engine)/' },
  },
  {
    name: 'triggers-cron-imports-triggers',
    comment: 'cron/ is pure arithmetic under every other part of src/triggers/',
    severity: 'error',
    from: { path: '^src/triggers/cron/' },
    to: { path: '^src/triggers/', pathNot: '^src/triggers/cron/' },
  },
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'import circles hide layering mistakes',
      from: {},
      to: { circular: true },
    },
    ...upward,
    ...triggerRules,
    {
      name: 'driver-outside-storage',
      comment: 'a database driver is imported only by its backend in src/storage/',
      severity: 'error',
      from: { pathNot: '^(src/storage/|test/|bench/)' },
      to: { path: 'node_modules/(better-sqlite3|pg|postgres|pg-[a-z-]+)/' },
    },
    {
      name: 'src-imports-packs',
      comment: 'only the CLI (the composition root) may import packs/',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^packs/' },
    },
    {
      name: 'pack-imports-internals',
      comment: 'packs import only the public entry points, as a third party pack would',
      severity: 'error',
      from: { path: '^packs/' },
      to: { path: '^src/', pathNot: PUBLIC_ENTRIES },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
