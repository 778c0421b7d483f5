/**
 * `npm run drill:removal`: `profiles remove` racing `order queue` and `sync --full` on the same
 * profile, every process a real CLI, with a SIGKILL in each run (the writer's or the remover's, at a
 * random moment after it reached the database). After each run the folder is read as the rep would find it:
 *
 * - lost: an order `order queue` reported queued that is in no listed profile's database;
 * - written into a removed file: a queue or sync that exited 0 for a profile no longer listed, or
 *   whose database is gone;
 * - stranded: a profile still listed whose database refuses writes (a remove killed after its fence)
 *   that a second `profiles remove` cannot finish.
 *
 * Each must be 0. Options: --runs N (default 40), --seed N (the delays' generator, default 1).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import BetterSqlite3 from 'better-sqlite3'
import { startOrdersHarness } from '../integration/orders-support'
import { root } from './support'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '40' }, seed: { type: 'string', default: '1' } } })
const runs = Number(values.runs)

// A small generator of its own, so a run can be repeated with --seed.
let state = Number(values.seed) >>> 0 || 1
const random = () => {
  state ^= state << 13
  state ^= state >>> 17
  state ^= state << 5
  return (state >>> 0) / 2 ** 32
}
const between = (low: number, high: number) => Math.round(low + random() * (high - low))

interface Ended {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

function start(args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main/cli/index.ts'), ...args], { cwd: root, env: { ...clean, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const ended = new Promise<Ended>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, ended }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `child` has `path` open (it has reached the database), or has ended. */
async function untilOpen(child: ChildProcess, path: string): Promise<void> {
  const opened = () => {
    try {
      return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === path
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  }
  while (child.exitCode === null && child.signalCode === null && !opened()) await sleep(5)
}

function listed(dataDir: string): boolean {
  const body = JSON.parse(readFileSync(join(dataDir, 'profiles.json'), 'utf8')) as { profiles: { id: string }[] }
  return body.profiles.some((profile) => profile.id === 'b')
}

function outboxHas(path: string, apiGuid: string): boolean {
  if (!existsSync(path)) return false
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return db.prepare('SELECT 1 FROM outbox WHERE api_guid = ?').get(apiGuid) !== undefined
  } finally {
    db.close()
  }
}

async function main(): Promise<void> {
  const harness = await startOrdersHarness()
  const orderable = harness.orderable(2)
  await harness.core.close()
  const scratch = mkdtempSync(join(tmpdir(), 'satchel-removal-drill-'))
  const template = join(scratch, 'template.db')
  copyFileSync(harness.databasePath, template)
  const orderFile = join(scratch, 'order.json')
  writeFileSync(orderFile, JSON.stringify({ customerGuid: orderable.customerGuid, catalogGuid: orderable.catalogGuid, lines: orderable.skus.map((sku) => ({ sku, qty: 1 })) }))
  const credentials = { SATCHEL_BASE_URL: harness.service.url, SATCHEL_API_KEY: harness.service.credentials.apiKey, SATCHEL_API_SECRET: harness.service.credentials.apiSecret }

  const tally = { kills: 0, lost: 0, writtenIntoRemoved: 0, stranded: 0, queued: 0, synced: 0, removed: 0, refused: 0, writerRefused: 0 }
  const problems: string[] = []
  for (let run = 0; run < runs; run += 1) {
    const dataDir = mkdtempSync(join(scratch, 'data-'))
    copyFileSync(template, join(dataDir, 'satchel.db'))
    const bDb = join(dataDir, 'profile-b.db')
    copyFileSync(template, bDb)
    const profiles = [
      { id: 'main', name: 'Main', supplier: null, databaseFile: 'satchel.db', secretsNamespace: '', lastUsedAt: '2026-11-01T00:00:00.000Z' },
      { id: 'b', name: 'B', supplier: null, databaseFile: 'profile-b.db', secretsNamespace: 'profile-b:', lastUsedAt: null },
    ]
    writeFileSync(join(dataDir, 'profiles.json'), JSON.stringify({ version: 1, profiles }))
    const env = { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/satchel-drill-bus' }

    const writerKind = run % 2 === 0 ? 'queue' : 'sync'
    const writer = writerKind === 'queue' ? start(['order', 'queue', '--file', orderFile, '--profile', 'B', '--json'], env) : start(['sync', '--profile', 'B', '--full', '--json'], { ...env, ...credentials })
    // Aimed at the window that matters: remove starts once the writer has the database open, and
    // each kill lands once its victim has the database open, at a random moment after.
    await untilOpen(writer.child, bDb)
    await sleep(between(0, 600))
    const remover = start(['profiles', 'remove', 'B', '--yes', '--json'], env)
    // Half the runs kill the writer, the rest the remover.
    const victim = run % 4 < 2 ? writer : remover
    await untilOpen(victim.child, bDb)
    await sleep(between(0, 400))
    if (victim.child.exitCode === null && victim.child.signalCode === null && victim.child.kill('SIGKILL')) tally.kills += 1
    const [wrote, removed] = await Promise.all([writer.ended, remover.ended])

    const stillListed = listed(dataDir)
    const fileThere = existsSync(bDb)
    const label = `run ${run + 1} (${writerKind}; writer ${wrote.signal ?? wrote.code}, remove ${removed.signal ?? removed.code})`
    if (wrote.code === 0 && writerKind === 'queue') {
      tally.queued += 1
      const apiGuid = (JSON.parse(wrote.stdout.trim().split('\n').at(-1)!) as { apiGuid: string }).apiGuid
      if (!stillListed || !outboxHas(bDb, apiGuid)) {
        tally.lost += 1
        problems.push(`${label}: order ${apiGuid} reported queued is in no listed profile`)
      }
    }
    if (wrote.code === 0 && writerKind === 'sync') tally.synced += 1
    if (wrote.code === 0 && (!stillListed || !fileThere)) {
      tally.writtenIntoRemoved += 1
      problems.push(`${label}: the ${writerKind} exited 0 for a profile ${stillListed ? 'whose file is gone' : 'no longer listed'}`)
    }
    if (wrote.code !== null && wrote.code !== 0) tally.writerRefused += 1
    if (removed.code === 0) tally.removed += 1
    if (removed.code === 1) tally.refused += 1
    // A remove killed after its fence leaves the profile listed and refusing writes: a second remove must finish it (or refuse, if it holds an order).
    if (stillListed && fileThere) {
      const again = start(['profiles', 'remove', 'B', '--yes', '--json'], env)
      const ended = await again.ended
      const holdsOrder = ended.code === 1 && ended.stdout.includes('"unsent":')
      if (ended.code !== 0 && !holdsOrder) {
        tally.stranded += 1
        problems.push(`${label}: a second remove could not finish: ${ended.stderr.trim()}`)
      }
    }
    rmSync(dataDir, { recursive: true, force: true })
    process.stdout.write(`${label}\n`)
  }
  await harness.service.close()
  rmSync(harness.directory, { recursive: true, force: true })
  rmSync(scratch, { recursive: true, force: true })

  process.stdout.write(`\n${runs} runs, ${tally.kills} SIGKILLs delivered\n`)
  process.stdout.write(`queue exited 0: ${tally.queued}; sync exited 0: ${tally.synced}; writer refused: ${tally.writerRefused}; remove done: ${tally.removed}; remove refused: ${tally.refused}\n`)
  process.stdout.write(`orders lost: ${tally.lost}; written into a removed file: ${tally.writtenIntoRemoved}; stranded profiles: ${tally.stranded}\n`)
  for (const problem of problems) process.stdout.write(`PROBLEM ${problem}\n`)
  process.exitCode = tally.lost + tally.writtenIntoRemoved + tally.stranded === 0 ? 0 : 1
}

void main()
