#!/usr/bin/env node
/**
 * The layering check of `npm run lint`: dependency-cruiser over src/, test/ and scripts/ (one graph)
 * with .dependency-cruiser.cjs, silent while the tree keeps the layers, and each refused import with
 * its rule's reason when it does not. `npx depcruise src test scripts --config .dependency-cruiser.cjs`
 * gives the same verdict, and its other reporters draw the graph.
 *
 * `node scripts/layers.mjs --table` writes the layering table of docs/architecture.md from the map
 * instead (the table test/unit/repo/lint-rules.test.ts holds against it), so a moved boundary is one edit
 * and one run. `--readme`, its name from when the table was the README's, does the same.
 */
import { cruise, format } from 'dependency-cruiser'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs')

/** docs/architecture.md's table: one row per key of `layers`, in the map's order. */
export function layeringTable(layers) {
  const cell = (names) => (names.length ? names.join(', ') : '—')
  return [
    '| under `src/` | may import (besides itself) | packages | because |',
    '|---|---|---|---|',
    ...Object.entries(layers).map(([key, { may, why }]) => {
      const folders = may.filter((target) => target in layers).map((target) => `\`${target}\``)
      const packages = may.filter((target) => target.startsWith('npm:')).map((target) => `\`${target.slice(4)}\``)
      if (may.includes('node:*')) packages.push('Node built-ins')
      return `| \`${key}\` | ${cell(folders)} | ${cell(packages)} | ${why} |`
    }),
  ]
}

if (process.argv.includes('--table') || process.argv.includes('--readme')) {
  const path = resolve(root, 'docs', 'architecture.md')
  const lines = readFileSync(path, 'utf8').split('\n')
  const table = layeringTable(config.layers)
  const start = lines.findIndex((line) => line.startsWith('| under `src/` |'))
  if (start < 0) throw new Error('docs/architecture.md has no layering table to replace')
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'))
  lines.splice(start, end - start, ...table)
  writeFileSync(path, lines.join('\n'))
  process.exit(0)
}

const { output } = await cruise(config.roots, {
  ...config.options,
  baseDir: root,
  ruleSet: { forbidden: config.forbidden },
  validate: true,
})
if (output.summary.violations.length > 0) {
  process.stdout.write((await format(output, { outputType: 'err-long' })).output)
  process.exitCode = 1
}
