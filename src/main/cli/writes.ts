/**
 * The CLI's writes after Send: `orders submit`, `orders change`, and the rep's choice on a conflict
 * (`orders apply-mine`, `orders drop-mine`). Each queues an outbox entry (or settles one) and exits
 * 0; `flush` sends them, in dependency order, with the orders.
 */
import type { Fulfilment, OrderChanges } from '../../shared/writes'
import { orderChangesSchema, signInAsUser as appSignIn } from '../../shared/writes'
import { CoreError, describeIssues } from '../errors'
import { SettingsTable } from '../db/settings'
import { savedConnection } from '../settings/connection'
import { orderTargets } from '../tracking/order-targets'
import { SentOrderWrites } from '../tracking/order-writes'
import { refuseDamaged } from './health'
import { CliFailure, UsageError, type GlobalOptions, type Output } from './errors'
import { withOrders } from './orders'

/** The contract's words, with the CLI's way to sign in. */
const signInAsUser = `${appSignIn.replace(' Sign in as a user in Settings, Connection.', '')} Give --user-token with --user-guid and --supplier-guid (or SATCHEL_USER_TOKEN, SATCHEL_USER_GUID, SATCHEL_SUPPLIER_GUID).`

/** The core's refusals in the CLI's terms: what the operator gave is wrong (2), or the state is (1). */
function asCliError(error: unknown): never {
  if (error instanceof CoreError) {
    if (error.code === 'INVALID_ARGUMENT' || error.code === 'NOT_FOUND') throw new UsageError(error.message)
    throw new CliFailure(error.message, error.code)
  }
  throw error
}

function requireSession(global: GlobalOptions, settings: SettingsTable): void {
  const saved = savedConnection(settings)
  if (global.userToken || (!global.apiKey && saved?.auth.kind === 'session')) return
  throw new UsageError(signInAsUser)
}

function queued(output: Output, entry: { apiGuid: string; title?: string; waitsFor?: string | null }): number {
  const waits = entry.waitsFor ? ` It waits for ${entry.waitsFor} to be sent first.` : ''
  output.result(
    { apiGuid: entry.apiGuid, state: 'queued', ...(entry.waitsFor ? { waitsFor: entry.waitsFor } : {}) },
    `Queued: ${entry.title ?? 'the change'} (${entry.apiGuid}); \`satchel flush\` sends it.${waits}`,
  )
  return 0
}

export async function runOrderSubmit(
  global: GlobalOptions,
  options: { order: string; fulfilment: Fulfilment },
  output: Output,
): Promise<number> {
  return withOrders(global, ({ desk }, db, local) => {
    refuseDamaged(db, global.db)
    requireSession(global, new SettingsTable(db))
    const writes = new SentOrderWrites(desk.outbox, orderTargets(local, desk.outbox))
    try {
      return queued(output, writes.submit(options.order, options.fulfilment))
    } catch (error) {
      return asCliError(error)
    }
  })
}

export async function runOrderChange(
  global: GlobalOptions,
  options: { order: string; changes: Record<string, unknown> },
  output: Output,
): Promise<number> {
  const parsed = orderChangesSchema.safeParse(options.changes)
  if (!parsed.success)
    throw new UsageError(
      describeIssues(parsed.error)
        .map((issue) => (issue.path === '(argument)' ? issue.message : `${issue.path}: ${issue.message}`))
        .join('; '),
    )
  const changes: OrderChanges = parsed.data
  return withOrders(global, ({ desk }, db, local) => {
    refuseDamaged(db, global.db)
    requireSession(global, new SettingsTable(db))
    const writes = new SentOrderWrites(desk.outbox, orderTargets(local, desk.outbox))
    try {
      return queued(output, writes.change(options.order, changes))
    } catch (error) {
      return asCliError(error)
    }
  })
}

/** "Apply mine" sends the conflicted change as the rep made it; "drop mine" lets the supplier's value stand. */
export async function runConflictChoice(
  global: GlobalOptions,
  options: { key: string; choice: 'apply' | 'drop' },
  output: Output,
): Promise<number> {
  return withOrders(global, ({ desk }, db) => {
    refuseDamaged(db, global.db)
    try {
      if (options.choice === 'apply') desk.outbox.writes.applyMine(options.key)
      else desk.outbox.writes.dropMine(options.key)
    } catch (error) {
      return asCliError(error)
    }
    const state = options.choice === 'apply' ? 'queued' : 'dropped'
    output.result(
      { apiGuid: options.key, state },
      options.choice === 'apply'
        ? `Your change goes as you made it at the next flush (${options.key}).`
        : `Your change was dropped; the supplier's values stand (${options.key}).`,
    )
    return 0
  })
}

/**
 * A new customer waiting among candidates: the supplier customer that is this one (adopted at the
 * next flush, its orders going to it), or none of them (made, once its first attempt cannot be in flight).
 */
export async function runCustomerChoice(
  global: GlobalOptions,
  options: { key: string; customerGuid: string | null },
  output: Output,
): Promise<number> {
  return withOrders(global, ({ desk }, db) => {
    refuseDamaged(db, global.db)
    try {
      desk.outbox.writes.chooseCustomer(options.key, options.customerGuid)
    } catch (error) {
      return asCliError(error)
    }
    output.result(
      { apiGuid: options.key, state: 'queued', customerGuid: options.customerGuid },
      options.customerGuid
        ? `The new customer is ${options.customerGuid} at the supplier; it is taken at the next flush, and its orders go to it (${options.key}).`
        : `None of them is this customer: it is made at the next flush, once its first attempt can no longer be with the supplier (${options.key}).`,
    )
    return 0
  })
}
