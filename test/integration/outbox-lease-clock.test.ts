/**
 * Two real `satchel flush` processes on one database, one of them with a wall clock minutes off. The
 * outbox lease must keep them from sending the same order twice at once, and each must tell the truth
 * about what it did: the one that sent says so, the one that found nothing left says that.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEntry, root } from '../support/cli'
import { orderRoute, startOrdersHarness, type OrdersHarness } from './orders-support'
import { until } from '../support/until'

/** Child processes on shifted clocks: a wait is guarded for 30 s. */
const guard = { timeoutMs: 30_000 }

let harness: OrdersHarness | undefined
const children = new Set<ChildProcess>()

afterEach(async () => {
  for (const child of children) {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  children.clear()
  await harness?.close()
  harness = undefined
})

const shiftedClock = join(root, 'test/support/shifted-clock.mjs')

interface Run {
  code: number | null
  stdout: string
  stderr: string
  done: Promise<void>
  /** SIGKILL to the whole process group: faketime runs node as its child, which must die too. */
  kill(): void
}

/** How a process gets its wrong clock: Date shifted inside it, or libfaketime under it. */
type Shift = 'in-process' | 'faketime'

const hasFaketime = spawnSync('faketime', ['-f', '+0', 'true']).status === 0

/** `speed`: with faketime, the clock also runs this many times as fast (its timers too). */
function flush(env: Record<string, string>, shiftMs: number, how: Shift, speed = 1): Run {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
  const node = [process.execPath, '--import', shiftedClock, cliEntry, 'flush', '--json']
  const [command, ...args] =
    (shiftMs !== 0 || speed !== 1) && how === 'faketime'
      ? ['faketime', '-f', `${shiftMs >= 0 ? '+' : ''}${shiftMs / 1000}s${speed !== 1 ? ` x${speed}` : ''}`, ...node]
      : node
  const proc = spawn(command!, args, {
    cwd: root,
    env: { ...clean, ...env, ...(how === 'in-process' ? { TEST_CLOCK_SHIFT_MS: String(shiftMs) } : {}) },
    detached: true,
  })
  children.add(proc)
  const run: Run = {
    code: null,
    stdout: '',
    stderr: '',
    kill: () => {
      try {
        process.kill(-proc.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    },
    done: new Promise((done) => {
      proc.on('exit', (code) => {
        run.code = code
        children.delete(proc)
        done()
      })
    }),
  }
  proc.stdout.on('data', (chunk) => (run.stdout += String(chunk)))
  proc.stderr.on('data', (chunk) => (run.stderr += String(chunk)))
  return run
}

/** The CLI's environment for the harness's database and double, signed in with the API key. */
const cliEnv = (h: OrdersHarness) => ({
  SATCHEL_DB: h.databasePath,
  SATCHEL_BASE_URL: h.service.url,
  SATCHEL_API_KEY: h.service.credentials.apiKey,
  SATCHEL_API_SECRET: h.service.credentials.apiSecret,
})

const reportOf = (run: Run) =>
  JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { sent: number; needsAttention: number; retrying: number }

async function twoFlushes(how: Shift, firstShiftMs: number, secondShiftMs: number): Promise<void> {
  const h = (harness = await startOrdersHarness())
  const unavailable = h.service.control.addFault({ route: orderRoute, type: 'status', status: 503 })
  const apiGuids = [await h.queueOrder(), await h.queueOrder()]
  await h.settle()
  h.service.control.removeFault(unavailable)
  h.service.control.clearRequestLog()
  await h.core.close()
  // Each reply takes a while, so the second process starts while the first has an order on the wire.
  h.service.control.addFault({ route: orderRoute, type: 'latency', phase: 'reply', ms: 2_500 })
  const env = cliEnv(h)

  const first = flush(env, firstShiftMs, how)
  await until(
    () => h.service.control.requestLog().some((e) => e.route === orderRoute),
    'the first process to send',
    guard,
  )
  const second = flush(env, secondShiftMs, how)
  await Promise.all([first.done, second.done])

  const posts = h.service.control.requestLog().filter((e) => e.route === orderRoute)
  for (const apiGuid of apiGuids) {
    expect(
      posts.filter((e) => JSON.stringify(e.body).includes(apiGuid)),
      apiGuid,
    ).toHaveLength(1)
    expect(h.service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  }
  expect(h.service.control.inFlightOverlaps()).toEqual([])
  // The process that sent says so; the one that waited for it and found nothing left says that, and
  // neither claims an order it knows was sent is still waiting.
  expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' })
  expect(reportOf(first)).toEqual({ sent: 2, needsAttention: 0, retrying: 0 })
  expect(second.code, second.stderr).toBe(0)
  expect(second.stderr).toMatch(/waiting for satchel .*\(pid \d+\), which is sending the outbox/)
  expect(second.stderr).not.toMatch(/did not take|still waiting/)
  expect(reportOf(second)).toEqual({ sent: 0, needsAttention: 0, retrying: 0 })
}

describe.each<Shift>(['in-process', 'faketime'])(
  'the outbox lease between two processes whose clocks disagree (clock shifted %s)',
  (how) => {
    const run = how === 'faketime' && !hasFaketime ? it.skip : it
    if (how === 'faketime' && !hasFaketime)
      console.log('skipping the faketime runs: faketime is not installed (apt-get install faketime)')

    run(
      'a flush whose clock is a minute slow keeps its lease; a normal flush started after it waits instead of resending',
      async () => {
        await twoFlushes(how, -60_000, 0)
      },
      90_000,
    )

    run(
      'a flush whose clock is a minute fast does not take the lease from a normal one that is sending',
      async () => {
        await twoFlushes(how, 0, 60_000)
      },
      90_000,
    )
  },
)

describe.each<Shift>(['in-process', 'faketime'])(
  'orders left by a flush whose clock was two days fast (clock shifted %s)',
  (how) => {
    const run = how === 'faketime' && !hasFaketime ? it.skip : it
    const twoDays = 2 * 86_400_000

    run(
      'a flush at the corrected clock sends them, each once, instead of waiting two days',
      async () => {
        const h = (harness = await startOrdersHarness())
        const unavailable = h.service.control.addFault({ route: orderRoute, type: 'status', status: 503 })
        const apiGuids = [await h.queueOrder(), await h.queueOrder()]
        await h.settle()
        h.service.control.removeFault(unavailable)
        await h.core.close()
        // The service commits the first order and holds its reply: the flush is killed with it on the wire,
        // and with the second order claimed behind it.
        h.service.control.addFault({ route: orderRoute, type: 'latency', phase: 'reply', ms: 3_000, times: 1 })
        const env = cliEnv(h)
        const killed = flush(env, twoDays, how)
        await until(
          () => h.service.control.ordersByApiGuid(apiGuids[0]!).length === 1,
          'the fast flush to place the first order',
          guard,
        )
        killed.kill()
        await killed.done
        // The next flush, on the same fast clock, takes the lease over and holds both orders until the
        // killed one's last request could have ended, by its clock; it is stopped while it waits.
        const waiting = flush(env, twoDays, how)
        await until(
          () => /waiting until .* to resend/.test(waiting.stderr),
          `the second fast flush to wait (${waiting.code}: ${waiting.stdout} ${waiting.stderr})`,
          guard,
        )
        waiting.kill()
        await waiting.done
        await until(
          () => h.service.control.requestLog().every((e) => e.endedMs !== undefined),
          'the double to be done with the killed request',
          guard,
        )

        // The corrected flush holds the dead sender's order one lease TTL (its request may still be on the
        // wire: the double's request log lists a request only once it has ended), then sends both.
        const corrected = flush(env, 0, how)
        await corrected.done
        expect(corrected.code, corrected.stderr).toBe(0)
        expect(corrected.stderr).toMatch(
          /^(satchel: waiting until .* to resend order\(s\) another Satchel process was sending when it stopped\n)?$/,
        )
        expect(reportOf(corrected)).toEqual({ sent: 2, needsAttention: 0, retrying: 0 })
        for (const apiGuid of apiGuids) expect(h.service.control.ordersByApiGuid(apiGuid), apiGuid).toHaveLength(1)
        expect(h.service.control.inFlightOverlaps()).toEqual([])
      },
      90_000,
    )
  },
)

describe('a second flush whose clock runs twenty times as fast', () => {
  const run = hasFaketime ? it : it.skip
  run(
    'takes the lease from a live sender, which then says so truthfully: nothing is sent twice, and no "did not take them"',
    async () => {
      const h = (harness = await startOrdersHarness())
      const unavailable = h.service.control.addFault({ route: orderRoute, type: 'status', status: 503 })
      const apiGuids = [await h.queueOrder(), await h.queueOrder(), await h.queueOrder()]
      await h.settle()
      h.service.control.removeFault(unavailable)
      await h.core.close()
      h.service.control.addFault({ route: orderRoute, type: 'latency', phase: 'reply', ms: 2_500 })
      const env = cliEnv(h)
      const live = flush(env, 0, 'faketime')
      await until(
        () => h.service.control.requestLog().some((e) => e.route === orderRoute),
        'the live sender to send',
        guard,
      )
      const fast = flush(env, 0, 'faketime', 20)
      await Promise.all([live.done, fast.done])
      // Whatever the two did between them, the service holds each order once.
      for (const apiGuid of apiGuids) expect(h.service.control.ordersByApiGuid(apiGuid), apiGuid).toHaveLength(1)
      for (const each of [live, fast]) expect(each.stderr).not.toMatch(/did not take them/)
      if (live.code !== 0) expect(live.stderr).toMatch(/another Satchel process took over sending them/)
      const after = flush(env, 0, 'in-process')
      await after.done
      expect(after.code, after.stderr).toBe(0)
    },
    90_000,
  )
})
