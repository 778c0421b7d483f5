/**
 * The outbox drill: several real `satchel` processes share one database and one outbox while one of
 * them is killed at random moments. Every order must reach the service exactly once, no order may be
 * POSTed while an earlier POST of it is still with the service, and what the processes report must
 * add up to what was queued.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import BetterSqlite3 from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { cli, cliEntry, root } from '../support/cli'
import { orderRoute, startOrdersHarness, type OrdersHarness } from './orders-support'
import { seededRandom } from '../support/seeded'

let harness: OrdersHarness | undefined
const children = new Set<ChildProcess>()

afterEach(async () => {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
  await harness?.close()
  harness = undefined
})

const ORDERS = 40
const KILLS = 3

interface Run {
  pid: number
  killed: boolean
  code: number | null
  stdout: string
  stderr: string
  done: Promise<void>
  kill(): void
}

function start(args: string[], env: Record<string, string>): Run {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
  const proc = spawn(process.execPath, [cliEntry, ...args], { cwd: root, env: { ...clean, ...env } })
  children.add(proc)
  const run: Run = {
    pid: proc.pid!,
    killed: false,
    code: null,
    stdout: '',
    stderr: '',
    kill: () => {
      run.killed = true
      proc.kill('SIGKILL')
    },
    done: new Promise((done) => {
      proc.on('exit', (code) => {
        run.code = code
        children.delete(proc)
        done()
      })
    }),
  }
  proc.stdout!.on('data', (chunk) => (run.stdout += String(chunk)))
  proc.stderr!.on('data', (chunk) => (run.stderr += String(chunk)))
  return run
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function read<T>(databasePath: string, work: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(databasePath, { readonly: true })
  try {
    return work(db)
  } finally {
    db.close()
  }
}

/** The pid holding the outbox lease now, if any. */
function outboxHolder(databasePath: string): number | null {
  return read(
    databasePath,
    (db) =>
      db
        .prepare<[], number>("SELECT pid FROM leases WHERE name = 'outbox' AND expires_at > unixepoch('subsec') * 1000")
        .pluck()
        .get() ?? null,
  )
}

describe('the outbox drill: two flush processes, status polling, three SIGKILLs', () => {
  it(`sends each of ${ORDERS} orders once, never overlapping, and the reports add up`, async () => {
    const h = (harness = await startOrdersHarness())
    const unavailable = h.service.control.addFault({ route: orderRoute, type: 'status', status: 503 })
    const apiGuids: string[] = []
    for (let i = 0; i < ORDERS; i++) apiGuids.push(await h.queueOrder())
    await h.settle()
    h.service.control.removeFault(unavailable)
    h.service.control.clearRequestLog()
    await h.core.close()
    h.service.control.addFault({ route: orderRoute, type: 'latency', phase: 'reply', ms: 500 })

    const env = {
      SATCHEL_DB: h.databasePath,
      SATCHEL_BASE_URL: h.service.url,
      SATCHEL_API_KEY: h.service.credentials.apiKey,
      SATCHEL_API_SECRET: h.service.credentials.apiSecret,
    }
    const seed = Number(process.env.DRILL_SEED ?? Date.now() % 100_000)
    const next = seededRandom(seed)
    console.log(`outbox drill seed ${seed} (DRILL_SEED=${seed} repeats it)`)

    // `status` every 300 ms for as long as the flushes run: it must never get in their way.
    let polling = true
    const statuses: { code: number; stdout: string; stderr: string }[] = []
    const poller = (async () => {
      while (polling) {
        statuses.push(await cli(['status', '--json'], env))
        await sleep(300)
      }
    })()

    const flushes: Run[] = [start(['flush', '--json'], env), start(['flush', '--json'], env)]
    for (let kill = 0; kill < KILLS; kill++) {
      await sleep(700 + next() * 3_000)
      const running = flushes.filter((run) => run.code === null && !run.killed)
      const holder = outboxHolder(h.databasePath)
      const victim = running.find((run) => run.pid === holder) ?? running[Math.floor(next() * running.length)]
      if (!victim) break
      victim.kill()
      await victim.done
      flushes.push(start(['flush', '--json'], env))
    }
    await Promise.all(flushes.map((run) => run.done))
    // Then flush to the end, as the rep's next start would.
    const last = await cli(['flush', '--json'], env)
    polling = false
    await poller

    const killed = flushes.filter((run) => run.killed)
    const finished = [...flushes.filter((run) => !run.killed), { ...last, pid: 0 }]
    console.log(`outbox drill: ${killed.length} killed, ${finished.length} finished, ${statuses.length} status runs`)
    expect(killed).toHaveLength(KILLS)
    for (const run of finished) expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 })
    for (const status of statuses) {
      expect(status.code, status.stderr).toBe(0)
      expect(status.stdout.trim().split('\n')).toHaveLength(1)
    }

    // Each order exactly once on the service, and never two POSTs of one order at the same time.
    for (const apiGuid of apiGuids) expect(h.service.control.ordersByApiGuid(apiGuid), apiGuid).toHaveLength(1)
    expect(h.service.control.inFlightOverlaps()).toEqual([])
    expect(h.service.control.requestLog().filter((e) => e.route === orderRoute).length).toBeGreaterThanOrEqual(ORDERS)

    // The reports add up: what each finished process says it sent, plus what the killed ones had
    // recorded as sent before they died (their lease owner is in the entry), is every order once.
    const reported = finished.reduce(
      (sum, run) => sum + (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { sent: number }).sent,
      0,
    )
    const sentBy = read(h.databasePath, (db) =>
      db.prepare<[], string | null>("SELECT sent_by FROM outbox WHERE state = 'sent'").pluck().all(),
    )
    expect(sentBy).toHaveLength(ORDERS)
    const byKilled = sentBy.filter((owner) => killed.some((run) => owner?.includes(`/${run.pid}/`))).length
    expect(reported + byKilled).toBe(ORDERS)
    expect(read(h.databasePath, (db) => db.pragma('integrity_check', { simple: true }))).toBe('ok')
  }, 180_000)
})
