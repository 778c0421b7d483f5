// @ts-check
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, relative, resolve, sep } from 'node:path'

/**
 * The rails eslint holds in src/, beside the layering that scripts/layers.mjs checks:
 *
 * - every dependency is written where dependency-cruiser can read it. It resolves `import`,
 *   `export … from`, `import()` and `require()` of a literal path; a computed path, a `require` made
 *   by `createRequire`, `module.require` or `eval` loads a module it never sees, so the layers
 *   would hold only for the imports that chose to be seen; a module of another layer is not
 *   handed on by importing it and exporting it again; `require` is not reached through the global
 *   object (`globalThis['req' + 'uire']`); and a worker's entry is in the starting file's own layer;
 * - a file stays a readable size: 600 lines (blank lines and comments count), migrations apart, and
 *   core/compose.ts, which only wires the parts together, 150.
 *
 * eslint.config.mjs applies `rails(...)` with its named, temporary exceptions; test/unit/repo/lint-rules.test.ts
 * proves each rule refuses what it is for, lets its clean counterpart through, and that every
 * exception is still needed.
 */

/** A module path dependency-cruiser can read: a string literal, or a template without `${}`. */
const literal = (node) =>
  (node?.type === 'Literal' && typeof node.value === 'string') ||
  (node?.type === 'TemplateLiteral' && node.expressions.length === 0)

const hidden = 'dependency-cruiser cannot see the module it loads, so the layers cannot hold it'

/** import() and require() of a computed path, require passed around, module.require. */
const literalImports = {
  meta: {
    type: 'problem',
    messages: {
      import: `import() of a computed path: ${hidden}. Import a literal path (one branch per module).`,
      require: `require() of a computed path: ${hidden}. Require a literal path, or import it.`,
      requireValue: `require used as a value: ${hidden}. Call require('literal') or import it.`,
      memberRequire: `.require() loads a module by a path of its own: ${hidden}. Import it.`,
    },
    schema: [],
  },
  create(context) {
    return {
      ImportExpression(node) {
        if (!literal(node.source)) context.report({ node, messageId: 'import' })
      },
      CallExpression(node) {
        const callee = node.callee
        if (
          callee.type === 'MemberExpression' &&
          !callee.computed &&
          callee.property.type === 'Identifier' &&
          callee.property.name === 'require'
        ) {
          context.report({ node, messageId: 'memberRequire' })
        }
      },
      'Program:exit'() {
        // Node's `require`: a global (declared by the config's globals, or not at all), not a
        // variable or parameter of that name.
        const global = context.sourceCode.scopeManager?.globalScope
        const references = [...(global?.set.get('require')?.references ?? []), ...(global?.through ?? [])]
        for (const { identifier: id } of references) {
          if (id.type !== 'Identifier' || id.name !== 'require') continue
          const parent = id.parent
          if (parent?.type === 'CallExpression' && parent.callee === id) {
            if (!literal(parent.arguments[0])) context.report({ node: parent, messageId: 'require' })
          } else if (!(
            parent?.type === 'MemberExpression' &&
            parent.object === id &&
            !parent.computed &&
            parent.property.type === 'Identifier' &&
            ['resolve', 'main'].includes(parent.property.name)
          )) {
            // require.resolve finds a path and require.main names the entry, loading nothing;
            // require.call or `const load = require` load what no one sees.
            context.report({ node: id, messageId: 'requireValue' })
          }
        }
      },
    }
  },
}

/**
 * createRequire makes a `require` eslint cannot follow (`createRequire(__filename)('../sync/engine')`).
 * It may only find a path: `createRequire(from).resolve('tsx/cjs')`, as the worker bootstraps of
 * sync/page-writer.ts and housekeeping/purge-slices.ts do; the path found cannot be loaded again without a
 * computed import() or require(), which literal-imports refuses.
 */
const noCreateRequire = {
  meta: {
    type: 'problem',
    messages: {
      createRequire: `createRequire makes a require that ${hidden}. Import the module; createRequire(from).resolve(name) to find a path is the one use allowed.`,
    },
    schema: [],
  },
  create(context) {
    /** The node that names createRequire is called at once, and only its .resolve is taken. */
    const onlyResolves = (name) => {
      const callee = name.parent?.type === 'MemberExpression' && name.parent.property === name ? name.parent : name
      const call = callee.parent
      if (call?.type !== 'CallExpression' || call.callee !== callee) return false
      const member = call.parent
      return (
        member?.type === 'MemberExpression' &&
        member.object === call &&
        !member.computed &&
        member.property.type === 'Identifier' &&
        member.property.name === 'resolve'
      )
    }
    const check = (node) => {
      const parent = node.parent
      // `import { createRequire } from 'node:module'` as itself; each use is then checked.
      if (
        parent?.type === 'ImportSpecifier' &&
        parent.local.type === 'Identifier' &&
        parent.local.name === 'createRequire'
      )
        return
      if (onlyResolves(node)) return
      context.report({ node, messageId: 'createRequire' })
    }
    return {
      'Identifier[name="createRequire"]': check,
      'Literal[value="createRequire"]': check,
    }
  },
}

/** The layers of .dependency-cruiser.cjs, longest key first (a file's layer is the longest that holds it). */
const layerKeys = Object.keys(createRequire(import.meta.url)('../../.dependency-cruiser.cjs').layers).sort(
  (a, b) => b.length - a.length,
)

/** The layer of a path relative to the repository, written with or without its extension. */
function layerOf(path) {
  const bare = path.replace(/\.(ts|js|vue)$/, '')
  return (
    layerKeys.find((key) =>
      key.endsWith('/') ? `${bare}/`.startsWith(`src/${key}`) : bare === `src/${key}`.replace(/\.ts$/, ''),
    ) ?? null
  )
}

/**
 * `import { X } from '../other-layer/x'` then `export { X }`: the re-export of .dependency-cruiser.cjs's
 * `re-export <layer>` rules in two statements, where dependency-cruiser sees only the import. As
 * there, a package is no layer: db/database.ts may hand on better-sqlite3's Database.
 */
const noPassingOn = {
  meta: {
    type: 'problem',
    messages: {
      passingOn:
        "{{name}} is {{layer}}'s ({{from}}): a layer re-exports only its own modules. Let its importers import {{name}} where it lives.",
    },
    schema: [],
  },
  create(context) {
    const file = relative(context.cwd, context.filename).split(sep).join('/')
    const own = layerOf(file)
    if (own === null) return {}
    return {
      'Program:exit'(program) {
        /** Each imported binding, by its local name: the module it comes from. */
        const imported = new Map()
        for (const statement of program.body) {
          if (statement.type !== 'ImportDeclaration') continue
          for (const specifier of statement.specifiers)
            imported.set(specifier.local.name, String(statement.source.value))
        }
        const check = (node, name) => {
          const from = imported.get(name)
          if (from === undefined) return
          if (!from.startsWith('.') && !from.startsWith('/')) return
          const target = layerOf(
            relative(context.cwd, resolve(dirname(context.filename), from))
              .split(sep)
              .join('/'),
          )
          if (target !== null && target !== own)
            context.report({ node, messageId: 'passingOn', data: { name, from, layer: target } })
        }
        for (const statement of program.body) {
          if (statement.type === 'ExportNamedDeclaration' && statement.source === null) {
            for (const specifier of statement.specifiers)
              if (specifier.local.type === 'Identifier') check(specifier, specifier.local.name)
          } else if (statement.type === 'ExportDefaultDeclaration' && statement.declaration.type === 'Identifier') {
            check(statement, statement.declaration.name)
          }
        }
      },
    }
  },
}

/** The names the global object goes by. */
const globalObjects = new Set(['globalThis', 'global', 'self', 'window'])

/**
 * `globalThis['req' + 'uire']`, `global.require`: Node's require reached through the global object,
 * where literal-imports (which follows the identifier) cannot see it; a computed name on the global
 * object hides which of its members is reached at all.
 */
const noHiddenGlobals = {
  meta: {
    type: 'problem',
    messages: {
      computed: `a computed name on {{object}} reaches a global no one can read off the code (require, process, …): ${hidden}. Name the global itself.`,
      require: `{{object}}.require loads a module by a path of its own: ${hidden}. Import it.`,
    },
    schema: [],
  },
  create(context) {
    return {
      MemberExpression(node) {
        if (node.object.type !== 'Identifier' || !globalObjects.has(node.object.name)) return
        const data = { object: node.object.name }
        if (node.computed && !(node.property.type === 'Literal' && typeof node.property.value === 'string'))
          context.report({ node, messageId: 'computed', data })
        else if (
          (node.computed ? node.property.type === 'Literal' && node.property.value : node.property.name) === 'require'
        )
          context.report({ node, messageId: 'require', data })
      },
    }
  },
}

/**
 * The two source-checkout bootstraps that start a worker from code (`eval: true`): each requires its
 * own folder's `*-worker.ts` behind tsx's hook, which no static path can say (a bundled build passes
 * its own factory instead).
 */
const evalWorkerFiles = new Set(['src/main/sync/page-writer.ts', 'src/main/housekeeping/purge-slices.ts'])

/**
 * A worker's entry is a module load dependency-cruiser never sees: `new Worker(new URL('../shell/ipc.js',
 * import.meta.url))` from sync/ would run the shell in a thread of the core. An entry is a literal
 * path (or `new URL(literal, import.meta.url)`) in the starting file's own layer; code run with
 * `eval: true` only in the bootstraps above.
 */
const workerEntries = {
  meta: {
    type: 'problem',
    messages: {
      otherLayer: `a worker entry in {{layer}} ({{path}}), started from {{own}}: ${hidden}. Start a worker from a module of its own layer.`,
      computed: `a worker entry that is not a literal path: ${hidden}. Give the entry as a literal path (or new URL(literal, import.meta.url)).`,
      eval: `a worker started from code (eval: true): ${hidden}. Only the source-checkout bootstraps (${[...evalWorkerFiles].join(', ')}) do so.`,
    },
    schema: [],
  },
  create(context) {
    const file = relative(context.cwd, context.filename).split(sep).join('/')
    const own = layerOf(file)
    /** The literal path of a worker's entry, or null when it is computed. */
    const entryOf = (node) => {
      if (literal(node)) return node.type === 'Literal' ? node.value : node.quasis[0].value.cooked
      if (
        node?.type === 'NewExpression' &&
        node.callee.type === 'Identifier' &&
        node.callee.name === 'URL' &&
        literal(node.arguments[0])
      ) {
        const first = node.arguments[0]
        return first.type === 'Literal' ? first.value : first.quasis[0].value.cooked
      }
      return null
    }
    return {
      NewExpression(node) {
        if (node.callee.type !== 'Identifier' || node.callee.name !== 'Worker') return
        const options = node.arguments[1]
        const evaluated =
          options?.type === 'ObjectExpression' &&
          options.properties.some(
            (property) =>
              property.type === 'Property' &&
              property.key.type === 'Identifier' &&
              property.key.name === 'eval' &&
              !(property.value.type === 'Literal' && property.value.value === false),
          )
        if (evaluated) {
          if (!evalWorkerFiles.has(file)) context.report({ node, messageId: 'eval' })
          return
        }
        const entry = entryOf(node.arguments[0])
        if (entry === null) return context.report({ node, messageId: 'computed' })
        if (!entry.startsWith('.')) return
        const target = relative(context.cwd, resolve(dirname(context.filename), entry))
          .split(sep)
          .join('/')
        const layer = layerOf(target)
        if (layer !== own)
          context.report({
            node,
            messageId: 'otherLayer',
            data: { layer: layer ?? 'no layer', path: entry, own: own ?? file },
          })
      },
    }
  },
}

/** The classes of the local copy (src/main/local/): built only there, behind LocalData (local/data.ts). */
const localClasses = (() => {
  const root = resolve(dirname(new URL(import.meta.url).pathname), '../../src/main/local')
  const names = new Set()
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = resolve(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts'))
        for (const match of readFileSync(path, 'utf8').matchAll(/^export class (\w+)/gm)) names.add(match[1])
    }
  }
  walk(root)
  return names
})()

/**
 * Where the local copy's surface may be opened: once per database connection, by whoever composes
 * the parts on it. Each has its own connection: the app's core, a CLI command, the sync writer's
 * thread, and the support bundle reading another profile's database for a moment.
 */
const compositionRoots = [
  'src/main/core/compose.ts',
  'src/main/cli/',
  'src/main/sync/writer-thread.ts',
  'src/main/housekeeping/support-bundle.ts',
]

/**
 * The local copy is built once per core and handed to the parts (issue 52): a part that built its
 * own readers had its own prepared statements and its own idea of the copy. So outside
 * src/main/local/ no class of it is constructed, the order rules' view (LocalOrderLookup) only by
 * orderLookupOf, and openLocalData only where the parts are composed.
 */
const localData = {
  meta: {
    type: 'problem',
    messages: {
      localClass:
        '{{name}} is the local copy’s own: take it from the LocalData the composition hands this part (local/data.ts), never build another.',
      lookup:
        'The order rules’ view of the local copy is one per core: orderLookupOf(local), never new LocalOrderLookup.',
      open: 'openLocalData opens the local copy’s surface once per connection, where the parts are composed ({{roots}}); a part is handed it.',
    },
    schema: [],
  },
  create(context) {
    const file = relative(context.cwd, context.filename).split(sep).join('/')
    if (!file.startsWith('src/main/')) return {}
    const inLocal = file.startsWith('src/main/local/')
    const isRoot = compositionRoots.some((root) => (root.endsWith('/') ? file.startsWith(root) : file === root))
    return {
      NewExpression(node) {
        if (node.callee.type !== 'Identifier') return
        const name = node.callee.name
        if (!inLocal && localClasses.has(name)) context.report({ node, messageId: 'localClass', data: { name } })
        else if (name === 'LocalOrderLookup' && file !== 'src/main/orders/local-lookup.ts')
          context.report({ node, messageId: 'lookup' })
      },
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'openLocalData' && !isRoot && !inLocal)
          context.report({ node, messageId: 'open', data: { roots: compositionRoots.join(', ') } })
      },
    }
  },
}

const plugin = {
  meta: { name: 'rails' },
  rules: {
    'literal-imports': literalImports,
    'no-create-require': noCreateRequire,
    'no-passing-on': noPassingOn,
    'no-hidden-globals': noHiddenGlobals,
    'worker-entries': workerEntries,
    'local-data': localData,
  },
}

/** Lines a source file may have, and core/compose.ts. */
const fileLines = 600
const composeLines = 150
const lines = (max) => ['error', { max, skipBlankLines: false, skipComments: false }]

/**
 * The rails as flat-config entries for src/. `oversized` names the files over their limit today, and
 * `reExporting` those that hand on another layer's module: each with why it is let through, whole
 * (max-lines, or no-passing-on, off), until it is mended.
 *
 * @param {{ oversized: { file: string, why: string }[], reExporting: { file: string, why: string }[] }} options
 */
export function rails({ oversized, reExporting }) {
  return [
    {
      files: ['src/**/*.{ts,vue}'],
      plugins: { rails: plugin },
      rules: {
        'rails/literal-imports': 'error',
        'rails/no-create-require': 'error',
        'rails/no-passing-on': 'error',
        'rails/no-hidden-globals': 'error',
        'rails/worker-entries': 'error',
        'rails/local-data': 'error',
        'no-eval': 'error',
        'no-new-func': 'error',
        'max-lines': lines(fileLines),
      },
    },
    // A migration is the schema's history, written once and never split.
    { files: ['src/main/db/migrations/**'], rules: { 'max-lines': 'off' } },
    // The composition root wires the parts together; what it grows beyond that belongs in a part.
    { files: ['src/main/core/compose.ts'], rules: { 'max-lines': lines(composeLines) } },
    ...oversized.map(({ file }) => ({ files: [file], rules: { 'max-lines': 'off' } })),
    ...reExporting.map(({ file }) => ({ files: [file], rules: { 'rails/no-passing-on': 'off' } })),
  ]
}
