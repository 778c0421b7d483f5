import type { ConnectivityCheck, ConnectivityMonitor } from './monitor'

export type SyncReason = 'resume' | 'network-change' | 'back-online'

/**
 * When a check should start a sync and an outbox flush: after waking from sleep or joining another
 * network (the laptop may have been offline for hours), or whenever the service becomes reachable
 * again. Not after the very first check at start-up: the sync engine schedules its own first run.
 */
export function syncReasonFor(check: ConnectivityCheck): SyncReason | null {
  if (!check.state.online) return null
  if (check.reason === 'resume' || check.reason === 'network-change') return check.reason
  if (check.previous.status === 'unknown') return null
  return check.previous.online ? null : 'back-online'
}

/** An outage the service came back from: how long it did not answer (when known), and whether it said it was down (a 5xx). */
export interface Outage {
  ms?: number
  fleet: boolean
}

/** `outage` comes with a return after one. */
export function syncOnReconnect(
  monitor: ConnectivityMonitor,
  syncAndFlush: (reason: SyncReason, outage?: Outage) => void,
): () => void {
  return monitor.onCheck((check) => {
    const reason = syncReasonFor(check)
    if (!reason) return
    if (check.outageMs === undefined && !check.fleetOutage) syncAndFlush(reason)
    else
      syncAndFlush(reason, {
        ...(check.outageMs === undefined ? {} : { ms: check.outageMs }),
        fleet: check.fleetOutage === true,
      })
  })
}
