/**
 * Timers whose delay is computed (from a stored time, a setting, a server's Retry-After, an option)
 * start here. Node keeps a timer's delay in a signed 32-bit integer: a delay above 2^31-1 ms (24.8
 * days) fires after 1 ms with a TimeoutOverflowWarning, so a retry scheduled 40 days ahead became a
 * timer that fired at once, rescheduled itself and fired again, thousands of times a second. NaN and
 * negative delays fire at once by Node's own rule; here that is said rather than relied on.
 */

/** The longest delay Node's timers take as given. */
export const longestTimerDelayMs = 2 ** 31 - 1

/**
 * A long wait is taken in steps of at most this, each re-armed for what is left: a timer never sits
 * on one number for days, and whatever it waits for is measured again every few hours.
 */
const stepMs = 3 * 60 * 60_000

/** A delay Node takes as given: NaN and negatives are 0, the rest at most longestTimerDelayMs. */
export function clampDelay(delayMs: number): number {
  if (Number.isNaN(delayMs) || delayMs <= 0) return 0
  return Math.min(delayMs, longestTimerDelayMs)
}

export interface Timer {
  cancel(): void
}

/**
 * Calls `fire` once, `delayMs` from now on the monotonic clock (a wall clock set meanwhile changes
 * nothing), however long that is: a wait longer than a step is taken step by step, and a step that
 * ends early is re-armed for the rest. `unref`: the timer does not keep the process alive.
 */
export function startTimer(fire: () => void, delayMs: number, options: { unref?: boolean } = {}): Timer {
  // The whole delay, however long (Infinity: never); only what each step arms is clamped.
  const due = performance.now() + (Number.isNaN(delayMs) || delayMs < 0 ? 0 : delayMs)
  let handle: ReturnType<typeof setTimeout> | undefined
  let cancelled = false
  // Always through setTimeout, even for 0: a timer never fires before its caller has returned.
  const arm = () => {
    const left = Math.max(0, due - performance.now())
    handle = setTimeout(
      () => {
        if (cancelled) return
        // A step that ended before the due time (a long wait's step, or a timer that fired a fraction
        // early by performance.now()) is re-armed for the rest.
        if (due - performance.now() >= 1) arm()
        else fire()
      },
      clampDelay(Math.min(Math.ceil(left), stepMs)),
    )
    if (options.unref) handle.unref?.()
  }
  arm()
  return {
    cancel() {
      cancelled = true
      clearTimeout(handle)
    },
  }
}

/** A period Node takes as given, for setInterval: at least 1 ms, at most longestTimerDelayMs. */
export function clampPeriod(periodMs: number): number {
  return Math.max(1, clampDelay(periodMs))
}

/**
 * What starts timers, passed in where a module's schedule is worth proving: the app uses startTimer
 * (Node's timers), the fleet simulation a virtual clock that runs a day of 10,000 laptops in seconds.
 */
export interface TimerPort {
  start(fire: () => void, delayMs: number, options?: { unref?: boolean }): Timer
}

export const nodeTimers: TimerPort = { start: startTimer }

/**
 * A number in [0, 1) for each purpose, the same every time for one install's seed and spread evenly
 * across seeds: one laptop keeps a regular rhythm while a fleet of them does not move in step. The
 * seed is drawn once per install; FNV-1a, then a 32-bit integer finaliser so close seeds land apart.
 */
export function installShare(seed: string, purpose: string): number {
  let hash = 0x811c9dc5
  for (const char of `${seed}\u0000${purpose}`) {
    hash ^= char.codePointAt(0) ?? 0
    hash = Math.imul(hash, 0x01000193)
  }
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x7feb352d)
  hash ^= hash >>> 15
  hash = Math.imul(hash, 0x846ca68b)
  hash ^= hash >>> 16
  return (hash >>> 0) / 2 ** 32
}
