#!/usr/bin/env node
// `npm test`: the vitest suites, then the renderer build and Playwright, then one plain total line
// read from both runners' JSON reports, so CI's last line counts every test that ran.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { stripVTControlCharacters } from 'node:util'

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

/**
 * Runs vitest with its output streamed as usual, keeping what it says about errors outside any test
 * (an unhandled rejection after a test ended, a worker that died): those fail the run with every test
 * passed, and CI's reader sees only the end of the log, so they are repeated beside the total.
 */
function runVitest(label, args) {
  process.stdout.write(`\n== ${label}\n`)
  return new Promise((resolve, reject) => {
    const child = spawn('npx', args, { stdio: ['inherit', 'pipe', 'pipe'], env: process.env })
    const kept = []
    let keeping = 0
    const watch = (chunk, out) => {
      out.write(chunk)
      for (const line of chunk.toString('utf8').split('\n')) {
        const plain = stripVTControlCharacters(line)
        if (/Unhandled (Error|Rejection)|Worker exited|Errors? occurred|Error: \[vitest/.test(plain)) keeping = 40
        if (keeping > 0 && kept.length < 400) {
          kept.push(plain)
          keeping -= 1
        }
      }
    }
    child.stdout.on('data', (chunk) => watch(chunk, process.stdout))
    child.stderr.on('data', (chunk) => watch(chunk, process.stderr))
    child.on('error', reject)
    child.on('close', (code) => resolve({ status: code ?? 1, kept }))
  })
}

const statuses = []
// Built first: the packaging dry run (vitest) and the Playwright tests both use out/.
const buildStatus = run('build (electron-vite)', 'npx', ['electron-vite', 'build'])
statuses.push(buildStatus)
const vitest = await runVitest('unit and integration tests (vitest)', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
])
statuses.push(vitest.status)
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
if (vitest.status !== 0 && vitest.kept.length > 0) {
  process.stdout.write(`\nvitest exited ${vitest.status}; what it said outside the tests:\n${vitest.kept.join('\n')}\n`)
} else if (vitest.status !== 0 && existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, 'utf8'))
  const files = (report.testResults ?? []).filter((file) => file.status === 'failed')
  process.stdout.write(`\nvitest exited ${vitest.status}; files it failed: ${files.length}\n`)
  for (const file of files) process.stdout.write(`  ${file.name}: ${String(file.message ?? '').slice(0, 500)}\n`)
}
const anyStepFailed = statuses.some((status) => status !== 0)
if (anyStepFailed && failed === 0) failed = 1
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
process.exit(failed > 0 || anyStepFailed ? 1 : 0)
