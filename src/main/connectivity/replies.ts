import type { SatchelEvent } from '../../shared/contract'
import { isServiceError } from '../ordering-client/errors'
import type { ConnectivityMonitor } from './monitor'

/**
 * Every request Satchel makes to the service says something about reachability, and saying it at
 * once is what keeps the status bar honest between probes: an order that just went through, or a
 * rejection that just came back, proves the service answers (without this, "You're offline" stayed
 * up beside both); a refused connection mid-sync is a reason to check now rather than at the next probe.
 */
export type ReplyOutcome = 'answered' | 'check' | 'ignore'

export function outcomeOf(error: unknown): ReplyOutcome {
  if (error === undefined) return 'answered'
  if (!isServiceError(error)) return 'ignore'
  switch (error.kind) {
    case 'cancelled':
      return 'ignore'
    // No usable answer: the network, a portal or a failing service. The probe tells which.
    case 'unreachable':
    case 'timeout':
    case 'truncated':
    case 'server':
    case 'invalidResponse':
    case 'tooLarge':
      return 'check'
    // The service itself answered, even if it said no.
    case 'credentials':
    case 'rejected':
    case 'invalidCursor':
    case 'notFound':
    case 'badRequest':
    case 'rateLimited':
      return 'answered'
  }
}

function report(monitor: Pick<ConnectivityMonitor, 'replied' | 'transportFailed'>, error: unknown): void {
  const outcome = outcomeOf(error)
  // A 429 or 503 that says how long to wait is obeyed by the probes as well as by the requests.
  const retryAfterMs = isServiceError(error) ? error.retryAfterMs : undefined
  const said = retryAfterMs === undefined ? [] : [retryAfterMs]
  if (outcome === 'answered') monitor.replied(...said)
  else if (outcome === 'check') monitor.transportFailed(error instanceof Error ? error.message : String(error), ...said)
}

/**
 * The same client, with each of its methods' outcomes reported to the monitor. The client's own
 * behaviour and errors are untouched: the watcher only looks.
 */
export function watchReplies<T extends object>(
  client: T,
  monitor: Pick<ConnectivityMonitor, 'replied' | 'transportFailed'>,
): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args)
        if (!(result instanceof Promise)) return result
        return result.then(
          (resolved: unknown) => {
            report(monitor, undefined)
            return resolved
          },
          (error: unknown) => {
            report(monitor, error)
            throw error
          },
        )
      }
    },
  })
}

/** Sync reports its replies through core events: pages arriving, and how a run ended. */
export function watchSyncEvents(
  monitor: Pick<ConnectivityMonitor, 'replied' | 'transportFailed'>,
): (event: SatchelEvent) => void {
  return (event) => {
    if (event.name === 'syncProgress' && event.payload.pagesDone > 0) monitor.replied()
    if (event.name !== 'syncFinished') return
    const error = event.payload.error
    if (!error) monitor.replied()
    else if (error.code === 'UNAVAILABLE') monitor.transportFailed(error.message)
    // REJECTED also covers a reply Satchel could not read, which a portal's page would be: not proof.
    else if (error.code === 'UNAUTHORIZED' || error.code === 'NOT_FOUND') monitor.replied()
  }
}
