/**
 * A fleet of laptops on one simulated day, each running Satchel's own decision modules: the
 * connectivity monitor, the sync scheduler, the outbox driver and the reactions that tie them
 * (imported, not copied), on a virtual clock and a simulated network. What is modelled instead of
 * run: the service (a counting model that answers like the double: 200 with an empty delta, 401 to
 * an unauthenticated probe, 429/503 when told), the sync engine (a run is the pages a sync with
 * nothing changed asks for, each through the client's real retry rules) and the outbox's storage
 * and flusher (oldest first, the flusher's back-off through the client's real backoffDelay, the
 * rest of the queue put off when the service is unavailable).
 */
import {
  createConnectivityMonitor,
  looksOffline,
  watchReplies,
  type ConnectivityMonitor,
  type ProbeResult,
} from '../../src/main/connectivity'
import { wireReactions } from '../../src/main/core/reactions'
import { EventHub } from '../../src/main/events'
import { errorCodeOf, ServiceError } from '../../src/main/ordering-client/errors'
import { backoffDelay, defaultRetryPolicy, withRetry, type Sleep } from '../../src/main/ordering-client/retry'
import type { Orders } from '../../src/main/orders'
import { createOutboxDriver, type OutboxDriver } from '../../src/main/orders/driver'
import { silentLogger, type Clock } from '../../src/main/ports'
import type { Sync } from '../../src/main/sync'
import type { SyncReport } from '../../src/shared/synced'
import { SyncScheduler, watchBusy } from '../../src/main/sync/scheduler'
import type { Timer, TimerPort } from '../../src/main/timers'
import { DEFAULT_SYNC_INTERVAL_MINUTES } from '../../src/main/settings/app-settings'
import type { OutboxSummary } from '../../src/shared/orders'
import { seededRandom } from '../support/seeded'
import { laptopPictures, type PictureFigures, type PictureModel } from './pictures'

const second = 1_000
const minute = 60 * second
const hour = 60 * minute
/** Midnight of the simulated day; times below are offsets from it. */
const midnight = Date.UTC(2026, 10, 26)
const at = (h: number, m = 0) => midnight + h * hour + m * minute

// ---------------------------------------------------------------------------------------------
// The virtual clock: a heap of timers, run in order; between steps every promise settles.

interface Scheduled {
  at: number
  seq: number
  fire: () => void
  cancelled: boolean
}

class VirtualTime implements TimerPort, Clock {
  private current: number
  private seq = 0
  private readonly heap: Scheduled[] = []

  constructor(start: number) {
    this.current = start
  }

  now(): number {
    return this.current
  }

  monotonic(): number {
    return this.current
  }

  start(fire: () => void, delayMs: number): Timer {
    const entry: Scheduled = {
      at: this.current + (Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0),
      seq: this.seq++,
      fire,
      cancelled: false,
    }
    this.push(entry)
    return {
      cancel() {
        entry.cancelled = true
      },
    }
  }

  /** Runs every timer due until `end`, letting promises settle after each step of `stepMs`. */
  async runUntil(end: number, stepMs: number): Promise<void> {
    for (;;) {
      const top = this.heap[0]
      if (!top || top.at > end) break
      const stepEnd = Math.min(end, top.at + stepMs)
      let next = this.heap[0]
      while (next && next.at <= stepEnd) {
        this.pop()
        if (!next.cancelled) {
          this.current = next.at
          next.fire()
        }
        next = this.heap[0]
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    this.current = end
  }

  private less(a: Scheduled, b: Scheduled): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq)
  }

  private push(entry: Scheduled): void {
    const heap = this.heap
    heap.push(entry)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(heap[i]!, heap[parent]!)) break
      ;[heap[i], heap[parent]] = [heap[parent]!, heap[i]!]
      i = parent
    }
  }

  private pop(): void {
    const heap = this.heap
    const last = heap.pop()!
    if (heap.length === 0) return
    heap[0] = last
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let smallest = i
      if (left < heap.length && this.less(heap[left]!, heap[smallest]!)) smallest = left
      if (right < heap.length && this.less(heap[right]!, heap[smallest]!)) smallest = right
      if (smallest === i) break
      ;[heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!]
      i = smallest
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The day.

interface FleetOptions {
  laptops: number
  /** Simulate from and until (ms since the epoch); the default is the whole day. */
  from?: number
  until?: number
  /** Requests of a sync run with nothing changed (measured against the double: 8 with two catalogs). */
  pagesPerSync?: number
  seed?: number
  /**
   * Timers this close (ms) fire together before the promises they settle run on: 1 keeps a reply and
   * the request that follows it in order; more runs faster and blurs that order.
   */
  stepMs?: number
  /** Item pictures (test/fleet/pictures.ts); false: none, to compare. */
  pictures?: PictureModel | false
  /**
   * Customers' order histories (src/main/brief/): customers the rep works with a day (default 20; 0:
   * none). Each is a history read after the next sync (one page, 5 customers a run at most), the
   * worst case for the service: none was opened online first, which would read it on the rep's act.
   * Whole histories then follow the sync's own orders delta at no request of their own.
   */
  customersPerDay?: number
}

type RequestKind = 'probe' | 'sync' | 'order' | 'picture'
const kinds: RequestKind[] = ['probe', 'sync', 'order', 'picture']

interface Phase {
  name: string
  from: number
  until: number
}

const dayPhases: Phase[] = [
  { name: '07:50 opening', from: at(7, 50), until: at(8, 20) },
  { name: '08:20 morning', from: at(8, 20), until: at(10) },
  { name: '10:00 503 outage', from: at(10), until: at(10, 10) },
  { name: '10:10 after the 503', from: at(10, 10), until: at(10, 20) },
  { name: '10:20 late morning', from: at(10, 20), until: at(12) },
  { name: '12:00 lunch', from: at(12), until: at(13) },
  { name: '13:00 early afternoon', from: at(13), until: at(14) },
  { name: '14:00 429 phase', from: at(14), until: at(14, 5) },
  { name: '14:05 after the 429', from: at(14, 5), until: at(14, 15) },
  { name: '14:15 afternoon', from: at(14, 15), until: at(17) },
  { name: '17:00 closing', from: at(17), until: at(18, 30) },
]

const outage503 = { from: at(10), until: at(10, 10) }
const busy429 = { from: at(14), until: at(14, 5), retryAfterMs: 120 * second }

interface OutboxEntry {
  guid: string
  queuedAt: number
  state: 'queued' | 'retrying' | 'sent'
  nextAttemptAt: number | null
  attempts: number
  sentAt: number | null
}

interface Laptop {
  index: number
  open: boolean
  networkUp: boolean
  windowVisible: boolean
  actedAt: number
  entries: OutboxEntry[]
  monitor: ConnectivityMonitor
  scheduler: SyncScheduler
  driver: OutboxDriver
  hub: EventHub
  networkListener: (() => void) | null
  unwire: (() => void)[]
  /** Customers worked with whose order history is not read yet (brief/). */
  historiesDue: number
  /** The Retry-After period this laptop is in, and what it sent during it. */
  quietPeriodEnd: number
  quietPeriodSent: number
}

interface PhaseFigures {
  phase: string
  seconds: number
  /** Per kind and in all: mean, p99 and peak of 1-second buckets. */
  rates: Record<RequestKind | 'all', { mean: number; p99: number; peak: number }>
}

interface FleetResults {
  laptops: number
  simulated: { from: string; until: string }
  pagesPerSync: number
  phases: PhaseFigures[]
  idle: {
    laptopHours: number
    requests: number
    perLaptopHour: number
    byKind: Record<RequestKind, number>
    /** Of `sync`, the customers' order histories read after the runs. */
    histories: number
  }
  opening: { peakOverMean: number | null }
  after503: { peakOverMean: number | null }
  waitingAtRecovery: { orders: number; p50Ms: number | null; p99Ms: number | null; unsentAtClose: number }
  retryAfter: { laptopsTold: number; mostInOnePeriod: number; periodsOverOne: number }
  orders: { written: number; sent: number; sentTwice: number; lost: number; leftWaitingAtClose: number }
  perOrderRequests: number
  perQuietSyncRequests: number
  /** Per laptop-hour open: the pictures' single-item reads to the service and requests to image hosts, and their bytes. */
  pictures: { laptopHours: number; serviceReads: number; serviceBytes: number; hostRequests: number; hostBytes: number }
}

const quantile = (sorted: number[], q: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

export async function simulateFleet(options: FleetOptions): Promise<FleetResults> {
  const from = options.from ?? at(7, 45)
  const until = options.until ?? at(18, 30)
  const pagesPerSync = options.pagesPerSync ?? 8
  const rng = seededRandom(options.seed ?? 27)
  const time = new VirtualTime(from)
  const seconds = Math.ceil((until - from) / second)
  const buckets: Record<RequestKind, Int32Array> = {
    probe: new Int32Array(seconds),
    sync: new Int32Array(seconds),
    order: new Int32Array(seconds),
    picture: new Int32Array(seconds),
  }
  const idleRequests: Record<RequestKind, number> = { probe: 0, sync: 0, order: 0, picture: 0 }
  let idleHistoryRequests = 0
  const pictureFigures: PictureFigures = { serviceReads: 0, serviceBytes: 0, hostRequests: 0, hostBytes: 0 }
  let openLaptopMs = 0
  let idleLaptopMs = 0
  /** How many times the service created each order (by api_guid). */
  const created = new Map<string, number>()
  const laptops: Laptop[] = []
  /** The monitor's own attention after the rep acts (its default): a laptop inside it is not idle. */
  const attentionMs = minute
  const latency: Record<RequestKind, number> = { probe: 60, sync: 150, order: 300, picture: 150 }

  const serviceState = (now: number): 'ok' | '503' | '429' => {
    if (now >= outage503.from && now < outage503.until) return '503'
    if (now >= busy429.from && now < busy429.until) return '429'
    return 'ok'
  }
  const inOutage = (now: number) =>
    (now >= outage503.from && now < at(10, 20)) || (now >= busy429.from && now < at(14, 15))
  const idle = (laptop: Laptop, now: number) =>
    laptop.open &&
    laptop.networkUp &&
    laptop.windowVisible &&
    !inOutage(now) &&
    now - laptop.actedAt >= attentionMs &&
    waiting(laptop) === 0

  const waiting = (laptop: Laptop) =>
    laptop.entries.reduce((count, entry) => count + (entry.state === 'sent' ? 0 : 1), 0)

  /** One request on the simulated network: counted at the service when it arrives, answered after its latency. */
  function request(laptop: Laptop, kind: RequestKind, guid?: string): Promise<'ok' | ServiceError> {
    const now = time.now()
    if (!laptop.networkUp || !laptop.open)
      return Promise.resolve(new ServiceError('unreachable', 'The ordering service cannot be reached: ENETUNREACH'))
    const bucket = Math.floor((now - from) / second)
    if (bucket >= 0 && bucket < seconds) buckets[kind][bucket]!++
    if (idle(laptop, now)) idleRequests[kind]++
    if (now < laptop.quietPeriodEnd) laptop.quietPeriodSent++
    const answer = serviceState(now)
    return new Promise((resolve) => {
      time.start(() => {
        if (answer === '503')
          return resolve(new ServiceError('server', 'The ordering service failed (503)', { status: 503 }))
        if (answer === '429') {
          if (time.now() >= laptop.quietPeriodEnd) {
            laptop.quietPeriodEnd = now + busy429.retryAfterMs
            laptop.quietPeriodSent = 1
          }
          return resolve(
            new ServiceError('rateLimited', 'The ordering service is busy (429)', {
              status: 429,
              retryAfterMs: busy429.retryAfterMs,
            }),
          )
        }
        if (kind === 'order' && guid) created.set(guid, (created.get(guid) ?? 0) + 1)
        resolve('ok')
      }, latency[kind])
    })
  }

  const sleep: Sleep = (ms) => new Promise((resolve) => time.start(() => resolve(), ms))

  function makeLaptop(index: number): Laptop {
    const laptopRandom = seededRandom((options.seed ?? 27) * 100_003 + index)
    const hub = new EventHub()
    const laptop = {
      index,
      open: false,
      networkUp: true,
      windowVisible: true,
      actedAt: -Infinity,
      entries: [],
      hub,
      networkListener: null,
      unwire: [],
      historiesDue: 0,
      quietPeriodEnd: -Infinity,
      quietPeriodSent: 0,
    } as unknown as Laptop

    const probe = async (): Promise<ProbeResult> => {
      const answer = await request(laptop, 'probe')
      if (answer === 'ok') return { status: 'online', detail: 'The service answered (401).' }
      if (answer.kind === 'rateLimited')
        return {
          status: 'online',
          detail: 'The service answered (429).',
          ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }),
        }
      // A 503 is the service answering that it is down, as the real probe reports it (probe.ts).
      if (answer.status !== undefined && answer.status >= 500)
        return { status: 'unreachable', detail: answer.message, serviceAnswered: true }
      return { status: 'unreachable', detail: answer.message }
    }
    const monitor = createConnectivityMonitor({
      isNetworkUp: () => laptop.networkUp,
      watchNetwork: (listener) => {
        laptop.networkListener = listener
        return () => (laptop.networkListener = null)
      },
      baseUrl: async () => 'https://orders.example.com',
      probe,
      clock: time,
      timers: time,
      logger: silentLogger,
      hasWaitingWork: () => waiting(laptop) > 0 || laptop.scheduler.isRunning(),
      windowVisible: true,
    })
    laptop.monitor = monitor

    // The client each part is given, watched the way the app watches it (ServiceClients' watch).
    const client = watchReplies(
      {
        async listPage(): Promise<void> {
          const answer = await request(laptop, 'sync')
          if (answer !== 'ok') throw answer
        },
        async createOrderWithItems(guid: string): Promise<void> {
          const answer = await request(laptop, 'order', guid)
          if (answer !== 'ok') throw answer
        },
      },
      monitor,
    )

    const emptyCounts = { fetched: 0, upserted: 0, deleted: 0 }
    const scheduler = new SyncScheduler({
      createEngine: async () => {
        const source = watchBusy(
          client,
          (busy) => scheduler.serviceBusy(busy),
          () => monitor.quietForMs(),
        )
        return {
          async run(): Promise<SyncReport> {
            const started = time.now()
            let error: SyncReport['error'] = null
            for (let page = 0; page < pagesPerSync; page++) {
              try {
                await withRetry(() => source.listPage(), { policy: defaultRetryPolicy, sleep, random: laptopRandom })
              } catch (caught) {
                const failure =
                  caught instanceof ServiceError ? caught : new ServiceError('unreachable', String(caught))
                error = { code: errorCodeOf(failure.kind), message: failure.message }
                break
              }
            }
            // After a run the service answered throughout: histories not read yet, 5 at most, a page each.
            for (let read = 0; error === null && read < 5 && laptop.historiesDue > 0; read++) {
              if (idle(laptop, time.now())) idleHistoryRequests++
              const answer = await request(laptop, 'sync')
              if (answer !== 'ok') break
              laptop.historiesDue--
            }
            const resources = {
              catalogs: emptyCounts,
              priceGroups: emptyCounts,
              customers: emptyCounts,
              catalogItems: emptyCounts,
              orders: emptyCounts,
            }
            return { ok: error === null, full: false, resources, scopes: [], durationMs: time.now() - started, error }
          },
        }
      },
      // Laptops that synced yesterday: a laptop that never has syncs at once, outside the spread.
      store: { allScopes: () => [], lastSyncAt: () => -86_400_000, lastReport: () => null },
      intervalMinutes: () => DEFAULT_SYNC_INTERVAL_MINUTES,
      clock: time,
      timers: time,
      logger: silentLogger,
      spread: { seed: `laptop-${index}` },
      quietForMs: () => monitor.quietForMs(),
      onStatus: (status) => hub.emit('syncStatusChanged', status),
      onFinished: (report) => hub.emit('syncFinished', report),
    })
    laptop.scheduler = scheduler

    // The pictures' pass after each sync and every quarter of an hour, never while offline (core/pictures.ts).
    if (options.pictures) {
      const pictures = laptopPictures(
        options.pictures,
        async () => {
          const answer = await request(laptop, 'picture')
          if (answer !== 'ok') throw answer
        },
        () => time.now(),
        laptopRandom,
        pictureFigures,
      )
      let syncedAt = time.now()
      const pass = () => {
        if (laptop.open && !looksOffline(monitor)) void pictures.pass()
      }
      hub.subscribe((event) => {
        if (event.name !== 'syncFinished' || !event.payload.ok) return
        pictures.changed(time.now() - syncedAt)
        syncedAt = time.now()
        pass()
      })
      const every = () => {
        pass()
        time.start(every, 15 * minute)
      }
      // The app's quarter-hour starts when it opens: laptops are not in step.
      time.start(every, laptopRandom() * 15 * minute)
    }

    // The outbox and its flusher, modelled: oldest first, one at a time, each entry's own back-off.
    const summary = (): OutboxSummary => ({
      queued: laptop.entries.filter((entry) => entry.state === 'queued').length,
      sending: 0,
      retrying: laptop.entries.filter((entry) => entry.state === 'retrying').length,
      needsAttention: 0,
      sent: laptop.entries.filter((entry) => entry.state === 'sent').length,
      pausedReason: null,
    })
    const changed = () => hub.emit('outboxChanged', summary())
    const outbox = {
      nextRetryAt: () => {
        const times = laptop.entries
          .filter((entry) => entry.state === 'retrying' && entry.nextAttemptAt !== null)
          .map((entry) => entry.nextAttemptAt!)
        return times.length === 0 ? null : Math.min(...times)
      },
      dueFarAhead: () => 0,
      retryNow: () => {
        for (const entry of laptop.entries) if (entry.state === 'retrying') entry.nextAttemptAt = time.now()
      },
      resume: () => undefined,
      summary,
    }
    const backoff = { maxAttempts: Infinity, baseDelayMs: 2_000, maxDelayMs: 5 * minute, maxRetryAfterMs: Infinity }
    let flushing: Promise<{ sent: number; needsAttention: number; retrying: number; summary: OutboxSummary }> | null =
      null
    let again = false
    const pass = async () => {
      for (;;) {
        const now = time.now()
        const entry = laptop.entries.find(
          (candidate) =>
            candidate.state === 'queued' || (candidate.state === 'retrying' && (candidate.nextAttemptAt ?? 0) <= now),
        )
        if (!entry || !laptop.open) return
        try {
          await client.createOrderWithItems(entry.guid)
          entry.state = 'sent'
          entry.sentAt = time.now()
          entry.nextAttemptAt = null
          changed()
        } catch (caught) {
          const error = caught instanceof ServiceError ? caught : new ServiceError('unreachable', String(caught))
          entry.attempts++
          const delay = Math.max(
            backoffDelay(entry.attempts, backoff, laptopRandom),
            Math.min(error.retryAfterMs ?? 0, hour),
          )
          entry.state = 'retrying'
          entry.nextAttemptAt = time.now() + delay
          // The service cannot take orders now: the rest of the queue waits as long.
          for (const other of laptop.entries) {
            if (other.state === 'queued' || other.state === 'retrying') {
              other.state = 'retrying'
              other.nextAttemptAt = Math.max(other.nextAttemptAt ?? 0, entry.nextAttemptAt)
            }
          }
          changed()
          return
        }
      }
    }
    const flusher = {
      flush() {
        if (flushing) {
          again = true
          return flushing
        }
        flushing = (async () => {
          do {
            again = false
            await pass()
          } while (again)
          flushing = null
          const left = summary()
          return { sent: 0, needsAttention: 0, retrying: left.retrying, summary: left }
        })()
        return flushing
      },
    }
    const driver = createOutboxDriver({
      outbox,
      flusher,
      clock: time,
      timers: time,
      logger: silentLogger,
      quietForMs: () => monitor.quietForMs(),
      // As compose.ts gives it: no attempts while the app says Offline, and this laptop's place in the
      // window its waiting orders go in after the service's own outage.
      offline: () => looksOffline(monitor),
      spreadSeed: `laptop-${index}`,
    })
    laptop.driver = driver

    laptop.unwire = wireReactions({
      hub,
      sync: { scheduler } as unknown as Sync,
      orders: { desk: { outbox }, driver, changed: () => undefined } as unknown as Orders,
      connectivity: monitor,
    })
    return laptop
  }

  // What each rep does, drawn from the fleet's seed.
  let written = 0
  const writeOrder = (laptop: Laptop, offline: boolean) => {
    const entry: OutboxEntry = {
      guid: `order-${laptop.index}-${laptop.entries.length}`,
      queuedAt: time.now(),
      state: 'queued',
      nextAttemptAt: null,
      attempts: 0,
      sentAt: null,
    }
    laptop.entries.push(entry)
    written++
    if (offline) return
    // "Send": the rep acted, the order waits in the outbox, the driver is nudged (orders/methods.ts).
    laptop.actedAt = time.now()
    laptop.monitor.repActed()
    laptop.hub.emit('outboxChanged', {
      queued: 1,
      sending: 0,
      retrying: 0,
      needsAttention: 0,
      sent: 0,
      pausedReason: null,
    })
    laptop.driver.nudge()
  }

  for (let index = 0; index < options.laptops; index++) {
    const laptop = makeLaptop(index)
    laptops.push(laptop)
    const asleep = rng() < 0.1
    const openAt = asleep ? at(8, 20) + rng() * 160 * minute : at(7, 50) + rng() * 30 * minute
    // Orders written offline the evening before wait in the outbox.
    if (rng() < 0.2) {
      const count = 1 + Math.floor(rng() * 3)
      for (let i = 0; i < count; i++) writeOrder(laptop, true)
    }
    const closeAt = at(17) + rng() * 75 * minute
    const lunchOffline = rng() < 1 / 3
    const lunchFrom = at(12) + (rng() - 0.5) * 20 * minute
    const lunchUntil = at(13) + (rng() - 0.5) * 20 * minute
    time.start(() => {
      laptop.open = true
      laptop.actedAt = time.now()
      laptop.scheduler.start()
      laptop.monitor.start()
      laptop.driver.start()
    }, openAt - from)
    // About eight orders a day, and a glance at a screen that needs the service every 40 minutes.
    for (let t = openAt + expo(rng, 60 * minute); t < Math.min(closeAt, at(16, 45)); t += expo(rng, 60 * minute)) {
      const when = t
      time.start(() => {
        if (laptop.open && !(lunchOffline && when >= lunchFrom && when < lunchUntil))
          writeOrder(laptop, !laptop.networkUp)
      }, when - from)
    }
    // The day's customers, each worked with at a moment of the open day (a stream of their own).
    const customerRng = seededRandom((options.seed ?? 27) * 7_919 + index)
    for (let customer = 0; customer < (options.customersPerDay ?? 20); customer++) {
      time.start(
        () => {
          laptop.historiesDue++
        },
        openAt + customerRng() * (closeAt - openAt) - from,
      )
    }
    for (let t = openAt + expo(rng, 40 * minute); t < closeAt; t += expo(rng, 40 * minute)) {
      time.start(() => {
        if (!laptop.open || !laptop.windowVisible) return
        laptop.actedAt = time.now()
        laptop.monitor.setWindowVisible(true)
      }, t - from)
    }
    if (lunchOffline) {
      time.start(() => {
        laptop.networkUp = false
        laptop.windowVisible = false
        laptop.monitor.setWindowVisible(false)
        laptop.networkListener?.()
      }, lunchFrom - from)
      time.start(() => {
        laptop.networkUp = true
        laptop.windowVisible = true
        laptop.actedAt = time.now()
        laptop.networkListener?.()
        laptop.monitor.setWindowVisible(true)
      }, lunchUntil - from)
    }
    time.start(() => {
      laptop.open = false
      laptop.monitor.stop()
      laptop.driver.stop()
      void laptop.scheduler.stop()
      for (const unwire of laptop.unwire) unwire()
    }, closeAt - from)
  }

  // How long laptops spend idle (window visible, nothing waiting, nobody acting), sampled every 30 s.
  const sampleMs = 30 * second
  const sample = () => {
    const now = time.now()
    for (const laptop of laptops) {
      if (idle(laptop, now)) idleLaptopMs += sampleMs
      if (laptop.open) openLaptopMs += sampleMs
    }
    time.start(sample, sampleMs)
  }
  time.start(sample, sampleMs)

  // Orders waiting when the service came back from the 503 outage.
  let waitingAtRecovery: OutboxEntry[] = []
  time.start(() => {
    waitingAtRecovery = laptops
      .filter((laptop) => laptop.open)
      .flatMap((laptop) => laptop.entries.filter((entry) => entry.state !== 'sent'))
  }, outage503.until - from)

  // Errors are made by the thousand here and their stacks are never read: capturing them was a
  // tenth of the run.
  const stackTraceLimit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    await time.runUntil(until, options.stepMs ?? 1)
  } finally {
    Error.stackTraceLimit = stackTraceLimit
  }
  for (const laptop of laptops) {
    if (!laptop.open) continue
    laptop.open = false
    laptop.monitor.stop()
    laptop.driver.stop()
    void laptop.scheduler.stop()
  }

  // The figures.
  const slice = (phase: Phase, kind: RequestKind | 'all'): number[] => {
    const first = Math.max(0, Math.floor((phase.from - from) / second))
    const last = Math.min(seconds, Math.floor((phase.until - from) / second))
    const values: number[] = []
    for (let i = first; i < last; i++)
      values.push(
        kind === 'all'
          ? buckets.probe[i]! + buckets.sync[i]! + buckets.order[i]! + buckets.picture[i]!
          : buckets[kind][i]!,
      )
    return values
  }
  const rates = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)
    return { mean, p99: quantile(sorted, 0.99) ?? 0, peak: sorted.at(-1) ?? 0 }
  }
  const phases = dayPhases
    .filter((phase) => phase.until > from && phase.from < until)
    .map((phase) => ({
      phase: phase.name,
      seconds: slice(phase, 'all').length,
      rates: Object.fromEntries(
        [...kinds, 'all' as const].map((kind) => [kind, rates(slice(phase, kind))]),
      ) as PhaseFigures['rates'],
    }))
  const peakOverMean = (phase: Phase) => {
    const { mean, peak } = rates(slice(phase, 'all'))
    return mean > 0 ? peak / mean : null
  }

  const recoveryDelays = waitingAtRecovery
    .filter((entry) => entry.sentAt !== null)
    .map((entry) => entry.sentAt! - outage503.until)
    .sort((a, b) => a - b)
  const allEntries = laptops.flatMap((laptop) => laptop.entries)
  const sentTwice = [...created.values()].filter((count) => count > 1).length
  const sentEntries = allEntries.filter((entry) => entry.state === 'sent')
  const lost =
    sentEntries.filter((entry) => !created.has(entry.guid)).length +
    allEntries.filter((entry) => entry.state !== 'sent' && created.has(entry.guid)).length
  const told = laptops.filter((laptop) => laptop.quietPeriodEnd > -Infinity)
  const idleTotal = idleRequests.probe + idleRequests.sync + idleRequests.order + idleRequests.picture
  const openHours = openLaptopMs / hour
  const idleHours = idleLaptopMs / hour
  const orderRequests = buckets.order.reduce((sum, value) => sum + value, 0)

  return {
    laptops: options.laptops,
    simulated: { from: new Date(from).toISOString().slice(11, 16), until: new Date(until).toISOString().slice(11, 16) },
    pagesPerSync,
    phases,
    idle: {
      laptopHours: idleHours,
      requests: idleTotal,
      perLaptopHour: idleHours > 0 ? idleTotal / idleHours : 0,
      byKind: {
        probe: idleRequests.probe / Math.max(idleHours, 1e-9),
        sync: idleRequests.sync / Math.max(idleHours, 1e-9),
        order: idleRequests.order / Math.max(idleHours, 1e-9),
        picture: idleRequests.picture / Math.max(idleHours, 1e-9),
      },
      histories: idleHistoryRequests / Math.max(idleHours, 1e-9),
    },
    opening: { peakOverMean: peakOverMean(dayPhases[0]!) },
    after503: { peakOverMean: peakOverMean(dayPhases[3]!) },
    waitingAtRecovery: {
      orders: waitingAtRecovery.length,
      p50Ms: quantile(recoveryDelays, 0.5),
      p99Ms: quantile(recoveryDelays, 0.99),
      unsentAtClose: waitingAtRecovery.length - recoveryDelays.length,
    },
    retryAfter: {
      laptopsTold: told.length,
      mostInOnePeriod: told.reduce((most, laptop) => Math.max(most, laptop.quietPeriodSent), 0),
      periodsOverOne: told.filter((laptop) => laptop.quietPeriodSent > 1).length,
    },
    orders: {
      written,
      sent: sentEntries.length,
      sentTwice,
      lost,
      leftWaitingAtClose: allEntries.length - sentEntries.length,
    },
    perOrderRequests: sentEntries.length > 0 ? orderRequests / sentEntries.length : 0,
    perQuietSyncRequests: pagesPerSync,
    pictures: {
      laptopHours: openHours,
      serviceReads: pictureFigures.serviceReads / Math.max(openHours, 1e-9),
      serviceBytes: pictureFigures.serviceBytes / Math.max(openHours, 1e-9),
      hostRequests: pictureFigures.hostRequests / Math.max(openHours, 1e-9),
      hostBytes: pictureFigures.hostBytes / Math.max(openHours, 1e-9),
    },
  }
}

/** An exponential wait with the given mean: the gaps between a rep's unplanned actions. */
function expo(rng: () => number, meanMs: number): number {
  return -Math.log(1 - rng()) * meanMs
}

/** The table `npm run bench:fleet` prints: per phase, requests per second to the service. */
export function formatPhases(results: FleetResults): string {
  const header = [
    'phase',
    'all mean',
    'all p99',
    'all peak',
    'probe mean/peak',
    'sync mean/peak',
    'order mean/peak',
    'picture mean/peak',
  ]
  const rows = results.phases.map((phase) => {
    const r = phase.rates
    const pair = (kind: RequestKind) => `${r[kind].mean.toFixed(1)} / ${r[kind].peak}`
    return [
      phase.phase,
      r.all.mean.toFixed(1),
      String(r.all.p99),
      String(r.all.peak),
      pair('probe'),
      pair('sync'),
      pair('order'),
      pair('picture'),
    ]
  })
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)))
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')
}
