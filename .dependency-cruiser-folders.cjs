// Folder-level rules, checked by `npm run lint` after .dependency-cruiser.cjs: no circle between
// folders of src/. The entries (src/index.ts, src/testing.ts) and the CLI are left out: they sit
// on top of everything, and dependency-cruiser counts a folder's subfolders as part of it, so
// src/ itself would otherwise close a circle through them.
const base = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-circular-folders',
      comment: 'a circle between folders hides a layering mistake even when no two files form one',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    ...base.options,
    metrics: true,
    exclude: { path: '^(src/(index|testing)[.]ts$|src/cli/)' },
  },
};
