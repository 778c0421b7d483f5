/**
 * What the shell needs to know about the outbox and the sync engine, as small interfaces so the
 * lifecycle and the updater can be built and tested apart from those engines. index.ts wires the
 * implementations available today (see its WIRE: notes).
 */
import type { SyncReason } from '../connectivity'

export interface OutboxActivity {
  /** True while an order request is on the wire (POST /v1/orderWithItems sent, answer not yet in). */
  isSending(): boolean
  /** Orders queued in the outbox and not yet accepted by the service. */
  unsentCount(): number
  /** Resolves true once nothing is being sent, or false when `timeoutMs` passes first. */
  waitUntilIdle(timeoutMs: number): Promise<boolean>
}

export interface SyncTrigger {
  /** Starts a delta sync and an outbox flush soon; must not throw and must coalesce repeated calls. */
  syncAndFlush(reason: SyncReason): void
}
