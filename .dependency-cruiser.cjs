// @ts-check
/**
 * The layering of Satchel, as an allow-list over resolved paths: every folder (and top-level file)
 * under src/ names what it may import, and everything else is refused. dependency-cruiser resolves
 * each import the way TypeScript does, so a relative detour ('../../main/sync/engine'), an absolute
 * path, `import()`, `require()` and `export … from` all land on the same file and meet the same rule.
 *
 * `layers` is the one place to change: a key is a folder (ending in '/') or a file, relative to src/;
 * `may` lists what it may import besides itself: other keys, 'npm:<package>' (its @types too) and
 * 'node:*' for Node's built-in modules. docs/architecture.md's layering table is checked against this map by
 * test/unit/repo/lint-rules.test.ts, which also proves the bypasses are refused.
 *
 * test/ and scripts/ are in the same graph (`roots`): src/ never imports them, and scripts reach src/
 * only through a part's public entry. What dependency-cruiser cannot see (a computed import(),
 * createRequire) eslint refuses in src/ (scripts/eslint/rails.mjs), so the graph is the whole of it.
 */

/** What every part of the Electron-free core may lean on. */
const floor = ['main/errors.ts', 'main/ports.ts', 'shared/']

/** Every part below the composers (core/, cli/, shell/), which may use them all. */
const parts = [
  'main/connectivity/',
  'main/sync/',
  'main/orders/',
  'main/tracking/',
  'main/usual-items/',
  'main/brief/',
  'main/quotes/',
  'main/documents/',
  'main/housekeeping/',
  'main/pictures/',
  'main/settings/',
  'main/desktop/',
  'main/browse/',
  'main/local/',
  'main/db/',
  'main/ordering-client/',
  'main/pricing.ts',
  'main/turns.ts',
  'main/timers.ts',
  'main/worker-calls.ts',
  'main/events.ts',
]

/** @type {Record<string, { may: string[], why: string }>} */
const layers = {
  'shared/': {
    may: ['npm:zod'],
    why: 'the IPC contract, loaded by the main process and the renderer alike: nothing runtime-specific (no Node built-ins, no electron, nothing of src/main)',
  },
  'preload/': {
    may: ['shared/', 'npm:electron'],
    why: 'exposes the contract through contextBridge; it never reaches into the main process’s code',
  },
  'renderer/': {
    may: ['shared/', 'npm:vue', 'npm:vue-router', 'npm:pinia', 'npm:@tanstack/vue-virtual', 'npm:chart.js', 'npm:vite'],
    why: 'talks to the core only through window.satchel (src/renderer/src/api.ts) and the contract; draws charts with Chart.js',
  },

  'main/turns.ts': { may: [], why: 'a scheduling primitive below everything' },
  'main/timers.ts': {
    may: [],
    why: 'timers with computed delays, clamped to what Node takes: a primitive below everything',
  },
  'main/worker-calls.ts': {
    may: ['node:*'],
    why: 'calls to a worker thread answered by id (the sync writer, the purge): a primitive below everything',
  },
  'main/pricing.ts': { may: ['shared/'], why: 'arithmetic every screen and check shares; it knows nothing above it' },
  'main/errors.ts': { may: ['shared/', 'npm:zod'], why: 'how a failure is told, in the contract’s words' },
  'main/ports.ts': {
    may: ['shared/'],
    why: 'the interfaces the core is given (clock, logger, secrets, network, desktop)',
  },
  'main/events.ts': { may: ['main/ports.ts', 'shared/'], why: 'the event hub, fed through the event-sink port' },
  'main/paths.ts': { may: ['node:*'], why: 'where the database lives by default, for the CLI and the shell' },
  'main/native.ts': { may: ['node:*'], why: 'finds better-sqlite3’s binary for the runtime; the shell’s concern' },

  'main/ordering-client/': {
    may: ['main/turns.ts', 'main/timers.ts', 'npm:undici', 'npm:zod', 'node:*', ...floor],
    why: 'the service’s client is the bottom layer: it knows nothing of what uses it',
  },
  'main/db/': {
    may: ['npm:better-sqlite3', 'node:*', ...floor],
    why: 'the database file, its migrations, leases and the settings table: below every folder that keeps data in it',
  },
  'main/settings/': {
    may: ['main/db/', 'main/ordering-client/', 'main/events.ts', 'npm:zod', ...floor],
    why: 'the rep’s settings and the saved connection (secrets through the keychain port), and their methods',
  },
  'main/desktop/': {
    may: ['main/db/', ...floor],
    why: 'what the app is and does (version, database, updates, logs), through the desktop port',
  },
  'main/local/': {
    may: ['main/db/', 'main/ordering-client/', 'main/pricing.ts', 'npm:better-sqlite3', 'node:*', ...floor],
    why: 'the local copy of synced data; sync/ and orders/ build on it, never the other way',
  },
  'main/browse/': {
    may: ['main/local/', 'main/db/', 'main/pricing.ts', 'npm:better-sqlite3', ...floor],
    why: 'the synced data as the screens read it; sync fills it, browse only reads',
  },
  'main/connectivity/': {
    may: ['main/ordering-client/', 'main/turns.ts', 'main/timers.ts', 'main/events.ts', 'node:*', ...floor],
    why: 'whether the service answers; the composer tells sync and orders, it never calls them',
  },
  'main/sync/': {
    may: [
      'main/local/',
      'main/db/',
      'main/ordering-client/',
      'main/pricing.ts',
      'main/turns.ts',
      'main/timers.ts',
      'main/worker-calls.ts',
      'main/events.ts',
      'npm:better-sqlite3',
      'node:*',
      ...floor,
    ],
    why: 'fills the local copy from the service; knows nothing of orders',
  },
  'main/orders/': {
    may: [
      'main/local/',
      'main/db/',
      'main/ordering-client/',
      'main/pricing.ts',
      'main/turns.ts',
      'main/timers.ts',
      'main/events.ts',
      'npm:better-sqlite3',
      'npm:zod',
      'node:*',
      ...floor,
    ],
    why: 'drafts, checks and the outbox; knows nothing of sync, quotes or documents',
  },
  'main/tracking/': {
    may: [
      'main/orders/',
      'main/sync/',
      'main/local/',
      'main/db/',
      'main/ordering-client/',
      'npm:better-sqlite3',
      ...floor,
    ],
    why: 'life after Send in one home: orders and sync each hand it their half through a port of their own, and never call each other',
  },
  'main/usual-items/': {
    may: [
      'main/orders/',
      'main/local/',
      'main/db/',
      'main/pricing.ts',
      'npm:better-sqlite3',
      'npm:zod',
      'node:*',
      ...floor,
    ],
    why: 'a customer’s usual items, read from orders (the desk, lookups, the outbox’s sent orders)',
  },
  'main/brief/': {
    may: [
      'main/tracking/',
      'main/orders/',
      'main/sync/',
      'main/local/',
      'main/db/',
      'main/ordering-client/',
      'main/pricing.ts',
      'main/turns.ts',
      ...floor,
    ],
    why: 'a customer’s brief: their history read through sync’s port and its writer, added up from the local copy; nothing below reads it',
  },
  'main/quotes/': {
    may: [
      'main/usual-items/',
      'main/orders/',
      'main/local/',
      'main/db/',
      'main/pricing.ts',
      'npm:better-sqlite3',
      'npm:zod',
      'node:*',
      ...floor,
    ],
    why: 'quotes become drafts through the order desk; documents print quotes, not the other way',
  },
  'main/documents/': {
    may: [
      'main/tracking/',
      'main/quotes/',
      'main/usual-items/',
      'main/orders/',
      'main/local/',
      'main/db/',
      'main/pricing.ts',
      'npm:better-sqlite3',
      'npm:zod',
      'node:*',
      ...floor,
    ],
    why: 'the printable document of a quote, draft or order: it reads them all, nothing reads it',
  },
  'main/housekeeping/': {
    may: [
      'main/browse/',
      'main/quotes/',
      'main/orders/',
      'main/settings/',
      'main/local/',
      'main/db/',
      'main/turns.ts',
      'main/worker-calls.ts',
      'npm:better-sqlite3',
      'npm:fflate',
      'node:*',
      ...floor,
    ],
    why: 'the data kept tidy and the support bundle: they read across orders, quotes and settings; nothing below reads them',
  },
  'main/pictures/': {
    may: ['main/local/', 'npm:better-sqlite3', 'npm:sharp', 'npm:undici', 'node:*', ...floor],
    why: 'item pictures: fetched politely, checked, downscaled once and kept in a cache of their own beside the profile; what to fetch first is handed in by the composer',
  },
  'main/core/': {
    may: [...parts, 'npm:better-sqlite3', 'npm:zod', 'node:*', ...floor],
    why: 'composes the core and validates every call; nothing below imports it',
  },
  'main/profiles/': {
    may: ['main/core/', ...parts, 'main/paths.ts', 'npm:zod', 'npm:@napi-rs/keyring', 'node:*', ...floor],
    why: 'the profiles list and a core per profile above createCore: one sync at a time, every outbox flushed; the system keyring the app and the CLI share',
  },
  'main/cli/': {
    may: [
      'main/core/',
      'main/profiles/',
      ...parts,
      'main/paths.ts',
      'npm:better-sqlite3',
      'npm:zod',
      'node:*',
      ...floor,
    ],
    why: 'the satchel CLI composes the core’s parts for a terminal; no electron',
  },
  'main/shell/': {
    may: [
      'main/core/',
      'main/profiles/',
      ...parts,
      'main/paths.ts',
      'main/native.ts',
      'npm:electron',
      'npm:electron-log',
      'npm:electron-updater',
      'npm:electron-vite',
      'npm:zod',
      'node:*',
      ...floor,
    ],
    why: 'the Electron app around the core: the only code of src/main that imports electron',
  },
}

const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A key of `layers` as a pattern over paths relative to the repository. */
const place = (key) => `^src/${literal(key)}${key.endsWith('/') ? '' : '$'}`
/** A package, as dependency-cruiser resolves it (node_modules may be a symlink, so no anchor). */
const npmPackage = (name) => `(^|/)node_modules/(@types/)?${literal(name)}(/|$)`

function allowRule(key, { may, why }) {
  const unknown = may.filter((target) => !target.startsWith('npm:') && target !== 'node:*' && !(target in layers))
  if (unknown.length > 0)
    throw new Error(`.dependency-cruiser.cjs: ${key} may import ${unknown.join(', ')}, which is no key of layers`)
  const allowed = [
    place(key),
    ...may.filter((target) => target in layers).map(place),
    ...may.filter((target) => target.startsWith('npm:')).map((target) => npmPackage(target.slice(4))),
  ]
  return {
    name: `layer ${key}`,
    comment: `${key} may import only ${may.length ? may.join(', ') : 'itself'}: ${why}`,
    severity: 'error',
    from: { path: place(key) },
    to: { pathNot: allowed, ...(may.includes('node:*') ? { dependencyTypesNot: ['core'] } : {}) },
  }
}

/**
 * A layer hands on only its own modules. `export … from` another layer passes that module to whoever
 * imports this one, past the rule that decides what they may import: usual-items/ may import orders/
 * but not ordering-client/, so orders/ must not re-export the client. A package is no layer: the
 * layer that owns it may hand on its types (db/database.ts gives better-sqlite3's Database).
 */
function reExportRule(key) {
  return {
    name: `re-export ${key}`,
    comment: `${key} re-exports only its own modules: a re-export of another layer hands it to importers that may not import it`,
    severity: 'error',
    from: { path: place(key) },
    to: { path: '^src/', pathNot: place(key), dependencyTypes: ['export'] },
  }
}

/**
 * What a script may import of src/: a part's public entry. A folder's is its index.ts, a top-level
 * file of src/main is its own, and the contract (src/shared/) is public as a whole. A part a script
 * needs, and that has no index.ts yet, gets one that exports just what is used.
 */
const publicEntries = Object.keys(layers).map((key) =>
  key === 'shared/' || !key.endsWith('/') ? place(key) : `^src/${literal(key)}index\\.ts$`,
)

/** What `npm run lint` cruises: the app, and the tests and scripts around it, in one graph. */
const roots = ['src', 'test', 'scripts']

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...Object.entries(layers).map(([key, layer]) => allowRule(key, layer)),
    ...Object.keys(layers).map(reExportRule),
    {
      name: 'src-alone',
      comment: 'src/ is the app and ships without test/ and scripts/: it never imports them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|scripts)/' },
    },
    {
      // test/ is held only by the rules for every file (no circle, nothing unresolvable): a test may
      // import anything in src/, since tests check the parts' insides.
      name: 'scripts-through-entries',
      comment:
        "scripts/ use src/ through a part's public entry (a folder's index.ts, a top-level file of src/main, src/shared/), never its insides.",
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^src/', pathNot: publicEntries },
    },
    {
      name: 'unmapped',
      comment: 'A file in no layer imports nothing until .dependency-cruiser.cjs gives its folder a place.',
      severity: 'error',
      from: { path: '^src/', pathNot: Object.keys(layers).map(place) },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'A circle has no bottom: each module in it needs the others loaded first.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'unresolvable',
      comment: 'An import that cannot be resolved cannot be checked against the layers.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports tie layers together as much as value imports do.
    tsPreCompilationDeps: true,
    // pinia and vue-router publish only through package.json "exports".
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
}

Object.defineProperty(module.exports, 'layers', { value: layers, enumerable: false })
Object.defineProperty(module.exports, 'roots', { value: roots, enumerable: false })
