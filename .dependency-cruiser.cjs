// Architecture rules, checked by `npm run lint` (docs/architecture.md): layers import downward,
// no import circles, database drivers only in src/storage/, packs only through public entries.
// The package's public entry points (package.json "exports"): all a pack may import.
const PUBLIC_ENTRIES =
  '^src/(index|testing|events/signing/index|triggers/index|walk/index|host/index|storage/sqlite/index|storage/postgres/index)[.]ts$';

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
