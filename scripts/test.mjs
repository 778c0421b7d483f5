#!/usr/bin/env node
// `npm test`, laid out in docs/testing.md: the app built once; then vitest and Playwright's
// `together` group side by side, so both cores work all the time; then Playwright's `alone` group
// (the performance spec) on a quiet machine. It ends with the ten slowest test files and one plain
// total line read from the runners' JSON reports, so CI's last line counts every test that ran.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { relative } from 'node:path'
import { stripVTControlCharacters } from 'node:util'

const results = 'test-results'
const reports = {
  vitest: `${results}/vitest.json`,
  together: `${results}/playwright.json`,
  alone: `${results}/playwright-alone.json`,
}
mkdirSync(results, { recursive: true })
for (const report of Object.values(reports)) rmSync(report, { force: true })

const cores = Math.max(2, availableParallelism())
// One vitest worker more than the cores: a few files spend most of their time waiting on a held
// request or a lease (cli-slow-writes: 81 s wall for 12 s of CPU; outbox-lease-clock: 73 s for 13 s),
// and each would otherwise keep a core idle while it waits. docs/testing.md has the figures.
const vitestWorkers = cores + 1
const started = Date.now()
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`

/**
 * Runs a step with its output passed through line by line, each line marked with the step's name
 * when steps run side by side. Keeps what vitest says about errors outside any test (an unhandled
 * rejection after a test ended, a worker that died): those fail the run with every test passed, and
 * CI's reader sees only the end of the log, so they are repeated beside the total.
 */
function step(label, command, args, { env = {}, prefix = '' } = {}) {
  const began = Date.now()
  process.stdout.write(`\n== ${label}\n`)
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
    const kept = []
    let keeping = 0
    const pass = (out) => {
      let partial = ''
      return (chunk) => {
        const lines = (partial + chunk.toString('utf8')).split('\n')
        partial = lines.pop() ?? ''
        for (const line of lines) {
          out.write(`${prefix}${line}\n`)
          const plain = stripVTControlCharacters(line)
          if (/Unhandled (Error|Rejection)|Worker exited|Errors? occurred|Error: \[vitest/.test(plain)) keeping = 40
          if (keeping > 0 && kept.length < 400) {
            kept.push(plain)
            keeping -= 1
          }
        }
      }
    }
    child.stdout.on('data', pass(process.stdout))
    child.stderr.on('data', pass(process.stderr))
    child.on('error', reject)
    child.on('close', (code) => {
      process.stdout.write(`== ${label}: exit ${code ?? 1} after ${seconds(Date.now() - began)}\n`)
      resolve({ status: code ?? 1, kept, ms: Date.now() - began })
    })
  })
}

const statuses = []
// Built first: the packaging dry run (vitest), the CLI tests and the Playwright tests all use out/.
const build = await step('build (electron-vite)', 'npx', ['electron-vite', 'build'])
statuses.push(build.status)

// Side by side: vitest on every core, and the browser tests, whose workers spend most of their time
// waiting on the page, in the gaps. Their lines are marked so the two streams can be told apart.
const [vitest, together] = await Promise.all([
  step(
    `unit and integration tests (vitest, ${vitestWorkers} workers)`,
    'npx',
    [
      'vitest',
      'run',
      `--maxWorkers=${vitestWorkers}`,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reports.vitest}`,
    ],
    { prefix: '[vitest] ' },
  ),
  build.status === 0
    ? step('end-to-end tests (Playwright, together)', 'npx', ['playwright', 'test', '--project=together'], {
        env: { SATCHEL_E2E_REPORT: reports.together },
        prefix: '[e2e] ',
      })
    : Promise.resolve({ status: 1, kept: [], ms: 0 }),
])
statuses.push(vitest.status, together.status)

// Alone, on a quiet machine: the performance spec's figures are the rep's scroll and keystrokes.
const alone =
  build.status === 0
    ? await step(
        'end-to-end tests (Playwright, alone: the performance spec)',
        'npx',
        ['playwright', 'test', '--project=alone', '--no-deps'],
        { env: { SATCHEL_E2E_REPORT: reports.alone, SATCHEL_E2E_WORKERS: '1' } },
      )
    : { status: 1, kept: [], ms: 0 }
statuses.push(alone.status)

let passed = 0
let failed = 0
let skipped = 0
/** Each test file's time: vitest's from its start to its end, Playwright's as the sum of its tests. */
const fileTimes = []
/** Each failed test, where it is and the start of its error. */
const failures = []

if (existsSync(reports.vitest)) {
  const report = JSON.parse(readFileSync(reports.vitest, 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + report.numTodoTests
  for (const file of report.testResults ?? []) {
    fileTimes.push({ file: relative(process.cwd(), file.name), ms: file.endTime - file.startTime })
    for (const test of file.assertionResults ?? [])
      if (test.status === 'failed')
        failures.push({
          where: `${relative(process.cwd(), file.name)} › ${test.fullName ?? test.title}`,
          message: (test.failureMessages ?? []).join('\n'),
        })
  }
} else {
  failed += 1
  process.stdout.write('vitest wrote no report\n')
}

/** Playwright's list reporter shows that a test was skipped but not why; CI readers need the why. */
function walkPlaywright(suites, visit) {
  for (const suite of suites ?? []) {
    for (const spec of suite.specs ?? []) for (const test of spec.tests ?? []) visit(spec, test)
    walkPlaywright(suite.suites, visit)
  }
}

for (const [name, path] of [
  ['together', reports.together],
  ['alone', reports.alone],
]) {
  if (!existsSync(path)) {
    failed += 1
    process.stdout.write(`Playwright (${name}) wrote no report\n`)
    continue
  }
  const report = JSON.parse(readFileSync(path, 'utf8'))
  passed += report.stats.expected + report.stats.flaky
  failed += report.stats.unexpected
  skipped += report.stats.skipped
  const byFile = new Map()
  walkPlaywright(report.suites, (spec, test) => {
    const ms = (test.results ?? []).reduce((sum, result) => sum + result.duration, 0)
    byFile.set(spec.file, (byFile.get(spec.file) ?? 0) + ms)
    if (test.status === 'unexpected' || test.status === 'flaky') {
      const last = (test.results ?? []).at(-1)
      failures.push({
        where: `${name}: ${spec.file}:${spec.line} › ${spec.title} (${seconds(last?.duration ?? 0)})`,
        message: [last?.error?.message, last?.error?.stack?.split('\n').find((l) => l.includes('.spec.ts'))]
          .filter(Boolean)
          .join('\n'),
      })
    }
    if (test.status === 'skipped') {
      const reason = (test.annotations ?? []).find((a) => a.type === 'skip')?.description ?? 'no reason given'
      process.stdout.write(`skipped: ${spec.file} › ${spec.title}: ${reason}\n`)
    }
  })
  for (const [file, ms] of byFile) fileTimes.push({ file: `test/e2e/${file}`, ms })
}

if (vitest.status !== 0 && vitest.kept.length > 0) {
  process.stdout.write(`\nvitest exited ${vitest.status}; what it said outside the tests:\n${vitest.kept.join('\n')}\n`)
} else if (vitest.status !== 0 && existsSync(reports.vitest)) {
  const report = JSON.parse(readFileSync(reports.vitest, 'utf8'))
  const files = (report.testResults ?? []).filter((file) => file.status === 'failed')
  process.stdout.write(`\nvitest exited ${vitest.status}; files it failed: ${files.length}\n`)
  for (const file of files) process.stdout.write(`  ${file.name}: ${String(file.message ?? '').slice(0, 500)}\n`)
}

// CI's reader sees only the end of the log: every failed test is named again here, with the first
// lines of what it said, so a failure found once on a shared machine can be chased without a rerun.
if (failures.length > 0) {
  process.stdout.write(`\nFailed (${failures.length}):\n`)
  for (const { where, message } of failures.slice(0, 20)) {
    process.stdout.write(`  ✘ ${where}\n`)
    for (const line of stripVTControlCharacters(message)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(0, 8))
      process.stdout.write(`      ${line.slice(0, 240)}\n`)
  }
}

process.stdout.write('\nThe ten slowest test files:\n')
for (const { file, ms } of fileTimes.sort((a, b) => b.ms - a.ms).slice(0, 10))
  process.stdout.write(`  ${seconds(ms).padStart(8)}  ${file}\n`)
process.stdout.write(
  `Steps: build ${seconds(build.ms)}; vitest ${seconds(vitest.ms)} beside e2e ${seconds(together.ms)}; ` +
    `e2e alone ${seconds(alone.ms)}. Total ${seconds(Date.now() - started)}.\n`,
)

const anyStepFailed = statuses.some((status) => status !== 0)
if (anyStepFailed && failed === 0) failed = 1
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
process.exit(failed > 0 || anyStepFailed ? 1 : 0)
