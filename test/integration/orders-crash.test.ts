import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import BetterSqlite3 from 'better-sqlite3'
import { orderRoute, startOrdersHarness, type OrdersHarness } from './orders-support'
import { until } from '../support/until'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const root = resolve(__dirname, '../..')
const child = resolve(root, 'test/support/flush-child.ts')

interface ChildRun {
  signal: NodeJS.Signals | null
  code: number | null
  stdout: string
  stderr: string
  /** Kills the process from outside (SIGKILL). */
  kill(): void
  done: Promise<void>
}

function runFlushChild(h: OrdersHarness, env: Record<string, string> = {}): ChildRun {
  // One real process (tsx as a loader, not a wrapper), so the signal reaches the flusher itself.
  const proc = spawn(process.execPath, ['--import', 'tsx', child, h.databasePath], {
    env: { ...process.env, SATCHEL_API_SECRET: h.service.credentials.apiSecret, ...env },
  })
  const run: ChildRun = {
    signal: null,
    code: null,
    stdout: '',
    stderr: '',
    kill: () => proc.kill('SIGKILL'),
    done: new Promise((done) => {
      proc.on('exit', (code, signal) => {
        run.code = code
        run.signal = signal
        done()
      })
    }),
  }
  proc.stdout.on('data', (chunk) => (run.stdout += String(chunk)))
  proc.stderr.on('data', (chunk) => (run.stderr += String(chunk)))
  return run
}

/** Three orders queued while the service refused them (503), so they wait for the child to send them. */
async function queueThreeWhileUnavailable(h: OrdersHarness): Promise<string[]> {
  const fault = h.service.control.addFault({ route: orderRoute, type: 'status', status: 503 })
  const apiGuids = [await h.queueOrder(), await h.queueOrder(), await h.queueOrder()]
  await h.settle()
  h.service.control.removeFault(fault)
  h.service.control.clearRequestLog()
  // The app quits; the child process is the next run of Satchel.
  await h.core.close()
  return apiGuids
}

function integrity(databasePath: string): string {
  const db = new BetterSqlite3(databasePath, { readonly: true })
  try {
    return String(db.pragma('integrity_check', { simple: true }))
  } finally {
    db.close()
  }
}

/** After the crash: restart Satchel, flush, and every order is on the service exactly once, none lost here. */
async function restartAndCheck(h: OrdersHarness, apiGuids: string[]): Promise<void> {
  expect(integrity(h.databasePath)).toBe('ok')
  await h.reopenCore()
  // An order the killed process had on the wire waits until its lease would have run out (1.5 s).
  const deadline = Date.now() + 10_000
  await h.api('flushOutbox')
  while ((await h.api('listOutbox')).some((e) => e.state !== 'sent') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    await h.api('flushOutbox')
  }
  const entries = await h.api('listOutbox')
  expect(entries.map((e) => e.apiGuid).sort()).toEqual([...apiGuids].sort())
  expect(entries.every((e) => e.state === 'sent')).toBe(true)
  for (const apiGuid of apiGuids) expect(h.service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  expect(integrity(h.databasePath)).toBe('ok')
}

describe('SIGKILL while an order is being sent', () => {
  it('killed right after marking the first order sending, before any request: every order is sent once after restart', async () => {
    harness = await startOrdersHarness()
    const apiGuids = await queueThreeWhileUnavailable(harness)
    const run = runFlushChild(harness, { SATCHEL_KILL_AT: 'claimed:1' })
    await run.done
    expect(run.signal).toBe('SIGKILL')
    expect(harness.service.control.requestLog().some((e) => e.route === orderRoute)).toBe(false)
    const local = new BetterSqlite3(harness.databasePath, { readonly: true })
    expect(local.prepare('SELECT state FROM outbox ORDER BY id').pluck().all()).toEqual([
      'sending',
      'retrying',
      'retrying',
    ])
    local.close()
    await restartAndCheck(harness, apiGuids)
  })

  it('killed while the first order is on the wire and the second has just been claimed', async () => {
    harness = await startOrdersHarness()
    const apiGuids = await queueThreeWhileUnavailable(harness)
    const run = runFlushChild(harness, { SATCHEL_KILL_AT: 'claimed:2' })
    await run.done
    expect(run.signal).toBe('SIGKILL')
    // The first request may or may not have reached the service; the second was never sent.
    expect(harness.service.control.ordersByApiGuid(apiGuids[0]!).length).toBeLessThanOrEqual(1)
    expect(harness.service.control.ordersByApiGuid(apiGuids[1]!)).toHaveLength(0)
    await restartAndCheck(harness, apiGuids)
  })

  it('killed after the service committed and answered, before Satchel recorded it: the resend finds the existing order', async () => {
    harness = await startOrdersHarness()
    const apiGuids = await queueThreeWhileUnavailable(harness)
    const run = runFlushChild(harness, { SATCHEL_KILL_AT: 'responded:1' })
    await run.done
    expect(run.signal).toBe('SIGKILL')
    expect(harness.service.control.ordersByApiGuid(apiGuids[0]!)).toHaveLength(1)
    await restartAndCheck(harness, apiGuids)
    // The first order was posted twice and exists once.
    const posts = harness.service.control
      .requestLog()
      .filter((e) => e.route === orderRoute && JSON.stringify(e.body).includes(apiGuids[0]!))
    expect(posts).toHaveLength(2)
  })

  it('killed from outside after the service committed, while its reply is still on the way', async () => {
    harness = await startOrdersHarness()
    const apiGuids = await queueThreeWhileUnavailable(harness)
    harness.service.control.addFault({ route: orderRoute, type: 'latency', phase: 'reply', ms: 3_000, times: 1 })
    const run = runFlushChild(harness)
    await until(
      () => harness!.service.control.ordersByApiGuid(apiGuids[0]!).length === 1,
      'the service to commit the first order',
    )
    run.kill()
    await run.done
    expect(run.signal).toBe('SIGKILL')
    await restartAndCheck(harness, apiGuids)
  })

  it('killed from outside while the request is still arriving: the service never saw it, and it is sent once after restart', async () => {
    harness = await startOrdersHarness()
    const apiGuids = await queueThreeWhileUnavailable(harness)
    harness.service.control.addFault({ route: orderRoute, type: 'latency', ms: 3_000, times: 1 })
    const run = runFlushChild(harness)
    await until(
      () => harness!.service.control.requestLog().some((e) => e.route === orderRoute),
      'the order request to arrive',
    )
    run.kill()
    await run.done
    expect(run.signal).toBe('SIGKILL')
    await restartAndCheck(harness, apiGuids)
  })

  it('a flush that is not killed sends everything and exits cleanly', async () => {
    harness = await startOrdersHarness()
    const apiGuids = await queueThreeWhileUnavailable(harness)
    const run = runFlushChild(harness)
    await run.done
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toEqual({ sent: 3, needsAttention: 0, retrying: 0 })
    await restartAndCheck(harness, apiGuids)
  })
})
