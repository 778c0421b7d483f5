/**
 * The one rule of what in the outbox needs the rep, for every place that counts it: the app's status
 * bar, Outbox screen and profile switcher (through the outbox summary), `satchel status`, the
 * support bundle. A rejected order, a change after Send the supplier changed too (a conflict) and
 * one it refused all wait for the rep; nothing else does.
 */
interface StateCounts {
  queued: number
  sending: number
  retrying: number
  needsAttention: number
  conflict?: number
  refused?: number
}

export function needingAttention(counts: StateCounts): number {
  return counts.needsAttention + (counts.conflict ?? 0) + (counts.refused ?? 0)
}

/** Not yet in effect at the supplier: waiting to be sent, or waiting for the rep. */
export function unsentOf(counts: StateCounts): number {
  return counts.queued + counts.sending + counts.retrying + needingAttention(counts)
}
