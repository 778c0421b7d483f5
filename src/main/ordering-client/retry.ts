import { ServiceError } from './errors'
import { startTimer } from '../timers'

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number
  baseDelayMs: number
  /** Upper bound of one backoff step. */
  maxDelayMs: number
  /** A Retry-After longer than this is not waited out inside one call; the error goes to the caller. */
  maxRetryAfterMs: number
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 15_000,
  maxRetryAfterMs: 60_000,
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

export function cancelledError(signal?: AbortSignal): ServiceError {
  const reason: unknown = signal?.reason
  return new ServiceError('cancelled', 'Cancelled', reason === undefined ? {} : { cause: reason })
}

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError(signal))
    const onAbort = () => {
      timer.cancel()
      reject(cancelledError(signal))
    }
    // A Retry-After is the server's number: one beyond 24.8 days must not fire at once.
    const timer = startTimer(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })

/**
 * Capped exponential backoff with "equal jitter": half the step is fixed, half random, so a fleet of
 * laptops coming back online together spreads out without any of them retrying at once.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1))
  return Math.round(step / 2 + random() * (step / 2))
}

export interface RetryOptions {
  policy: RetryPolicy
  sleep: Sleep
  random: () => number
  signal?: AbortSignal
  /** When the whole call must be over: no retry starts that could not begin before it. */
  deadline?: { at: number; now: () => number }
  onRetry?: (info: { attempt: number; delayMs: number; error: ServiceError }) => void
}

/** Runs `operation` again after transient failures only; every other failure goes straight back. */
export async function withRetry<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt)
    } catch (error) {
      if (!(error instanceof ServiceError) || !error.transient || attempt >= options.policy.maxAttempts) throw error
      if (options.signal?.aborted) throw cancelledError(options.signal)
      let delayMs = backoffDelay(attempt, options.policy, options.random)
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > options.policy.maxRetryAfterMs) throw error
        delayMs = Math.max(error.retryAfterMs, 0)
      }
      if (options.deadline && options.deadline.now() + delayMs >= options.deadline.at) throw error
      options.onRetry?.({ attempt, delayMs, error })
      await options.sleep(delayMs, options.signal)
    }
  }
}
