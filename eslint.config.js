// ESLint for the page (web/) and the JS tests (tests/js, tests/browser): the recommended
// correctness rules, the browser's globals for web/ and Node's for the tests. Run by
// scripts/test (npm run lint); formatting is prettier's (npm run format:check).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['dist/**', 'build*/**', 'node_modules/**', 'web/js/dlcost_wasm.mjs', 'tests/artifacts/**'] },
  js.configs.recommended,
  {
    files: ['web/**/*.js'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    // Functions that read in one screen (issue #31): split a longer one into named stages.
    files: ['web/js/**/*.js'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    files: ['web/sw.js'],
    // build-web replaces __DLCOST_FILES__ with the build's file list.
    languageOptions: { sourceType: 'script', globals: { ...globals.serviceworker, __DLCOST_FILES__: 'readonly' } },
  },
  {
    files: ['tests/**/*.mjs', 'tests/**/*.js', 'eslint.config.js', 'scripts/**/*.mjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
  {
    rules: {
      'no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
];
