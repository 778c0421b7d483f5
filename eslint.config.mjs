// @ts-check
import js from '@eslint/js'
import pluginVue from 'eslint-plugin-vue'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * The layering rules of the architecture live here, not in a wiki: only src/main/shell (and the
 * preload, which is Electron's by nature) may import `electron`, and the renderer may not reach into
 * the main process's code. test/unit/lint-rules.test.ts proves the rules are active.
 */
const electronBan = {
  name: 'electron',
  message: 'Only src/main/shell (and src/preload) may import electron; keep the core Electron-free.',
}
const electronPatterns = [{ group: ['electron/*'], message: electronBan.message }]

/**
 * Inside the core, dependencies point down (README, "Layout"): core/ composes everything, so only
 * core/, cli/ and shell/ may import it; the ordering service's client knows nothing of what uses it;
 * the local copy knows nothing of sync or orders. Flat config replaces a rule's options per file
 * rather than merging them, so each folder's entry carries the electron ban as well.
 */
const layering = {
  core: { regex: '(^|/)core(/|$)', message: 'Only src/main/core, cli and shell may import core/: it composes the others, so nothing below may depend on it.' },
  orderingClient: {
    regex: '^\\.\\./(?!(errors|ports|timers|turns)$)[^.]',
    message: 'ordering-client/ is the bottom layer: it imports only ../errors, ../ports, ../timers, ../turns and src/shared.',
  },
  store: { regex: '^\\.\\./(sync|orders)(/|$)', message: 'store/ is the local copy: it must not import sync/ or orders/, which build on it.' },
}
const mainImports = (...extra) => ({
  'no-restricted-imports': ['error', { paths: [electronBan], patterns: [...electronPatterns, ...extra] }],
})

/**
 * Several connections write one database at once (the sync's writer thread, the app's main
 * connection, CLI processes). A deferred transaction that reads before it writes cannot write once
 * another connection has committed in between: SQLite answers "database is locked" at once, with no
 * busy wait (the first-sync e2e failed that way). So in src/main every transaction takes the write
 * lock when it begins: `db.transaction(fn).immediate()`, never `db.transaction(fn)()`. Nested calls
 * become savepoints either way.
 */
const sqlite = {
  rules: {
    'immediate-transactions': {
      meta: { type: 'problem', messages: { deferred: 'Begin SQLite transactions with .immediate(): a deferred one that reads first fails with "database is locked" when another connection commits in between.' } },
      create(context) {
        return {
          CallExpression(node) {
            const callee = node.callee
            if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier' || callee.property.name !== 'transaction') return
            const parent = node.parent
            const chained = parent.type === 'MemberExpression' && parent.object === node && parent.property.type === 'Identifier' && ['immediate', 'exclusive'].includes(parent.property.name)
            if (!chained) context.report({ node, messageId: 'deferred' })
          },
        }
      },
    },
  },
}

export default tseslint.config(
  {
    ignores: ['out/**', 'dist/**', 'build/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'test/bench/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'], sourceType: 'module' } },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  {
    // Plain CommonJS helpers shared by .mjs scripts and TypeScript tests.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/bridge/stand-in.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronBan],
          patterns: [
            ...electronPatterns,
            { regex: '(^|/)main(/|$)', message: 'The renderer talks to the core only through src/renderer/src/api.ts and the IPC contract.' },
          ],
        },
      ],
      'no-restricted-properties': ['error', { property: 'ipcRenderer', message: 'The renderer has no raw IPC; use the contract.' }],
    },
  },
  {
    files: ['src/main/**/*.ts', 'src/shared/**/*.ts'],
    ignores: ['src/main/shell/**'],
    rules: mainImports(layering.core),
  },
  {
    files: ['src/main/core/**/*.ts', 'src/main/cli/**/*.ts'],
    rules: mainImports(),
  },
  {
    files: ['src/main/ordering-client/**/*.ts'],
    rules: mainImports(layering.core, layering.orderingClient),
  },
  {
    files: ['src/main/store/**/*.ts'],
    rules: mainImports(layering.core, layering.store),
  },
  {
    files: ['src/main/shell/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/main/**/*.ts'],
    plugins: { sqlite },
    rules: { 'sqlite/immediate-transactions': 'error' },
  },
)
