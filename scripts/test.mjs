#!/usr/bin/env node
// `npm test`: the vitest suites, then the renderer build and Playwright, then one plain total line
// read from both runners' JSON reports, so CI's last line counts every test that ran.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'

const results = 'test-results'
const vitestReport = `${results}/vitest.json`
const playwrightReport = `${results}/playwright.json`
mkdirSync(results, { recursive: true })
rmSync(vitestReport, { force: true })
rmSync(playwrightReport, { force: true })

function run(label, command, args) {
  process.stdout.write(`\n== ${label}\n`)
  const child = spawnSync(command, args, { stdio: 'inherit', env: process.env })
  if (child.error) throw child.error
  return child.status ?? 1
}

const statuses = []
// Built first: the packaging dry run (vitest) and the Playwright tests both use out/.
const buildStatus = run('build (electron-vite)', 'npx', ['electron-vite', 'build'])
statuses.push(buildStatus)
statuses.push(
  run('unit and integration tests (vitest)', 'npx', [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestReport}`,
  ]),
)
if (buildStatus === 0)
  statuses.push(run('end-to-end tests (Playwright, Chromium through the bridge)', 'npx', ['playwright', 'test']))

let passed = 0
let failed = 0
let skipped = 0
if (existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + report.numTodoTests
} else {
  failed += 1
  process.stdout.write('vitest wrote no report\n')
}
/** Playwright's list reporter shows that a test was skipped but not why; CI readers need the why. */
function skippedWithReasons(suites, found = []) {
  for (const suite of suites ?? []) {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'skipped') continue
        const reason = (test.annotations ?? []).find((a) => a.type === 'skip')?.description ?? 'no reason given'
        found.push(`${spec.file} › ${spec.title}: ${reason}`)
      }
    }
    skippedWithReasons(suite.suites, found)
  }
  return found
}

if (existsSync(playwrightReport)) {
  const report = JSON.parse(readFileSync(playwrightReport, 'utf8'))
  const { stats } = report
  passed += stats.expected + stats.flaky
  failed += stats.unexpected
  skipped += stats.skipped
  for (const line of skippedWithReasons(report.suites)) process.stdout.write(`skipped: ${line}\n`)
} else {
  failed += 1
  process.stdout.write('Playwright wrote no report\n')
}
const anyStepFailed = statuses.some((status) => status !== 0)
if (anyStepFailed && failed === 0) failed = 1
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
process.exit(failed > 0 || anyStepFailed ? 1 : 0)
