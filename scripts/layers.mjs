#!/usr/bin/env node
/**
 * The layering check of `npm run lint`: dependency-cruiser over src/ with .dependency-cruiser.cjs,
 * silent while the tree keeps the layers, and each refused import with its rule's reason when it does
 * not. `npx depcruise src --config .dependency-cruiser.cjs` gives the same verdict, and its other
 * reporters draw the graph.
 */
import { cruise, format } from 'dependency-cruiser'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs')

const { output } = await cruise(['src'], { ...config.options, baseDir: root, ruleSet: { forbidden: config.forbidden }, validate: true })
if (output.summary.violations.length > 0) {
  process.stdout.write((await format(output, { outputType: 'err-long' })).output)
  process.exitCode = 1
}
