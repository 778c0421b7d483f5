/**
 * The contract's customer writes: a customer made on this laptop (addCustomer) and a change to a
 * synced one (changeCustomer), queued in the one outbox by the same CustomerEdits the CLI's
 * `customers add` and `customers change` use, and nudged out at once.
 */
import type { Implementations } from '../../shared/contract'
import type { LocalData } from '../local/data'
import type { Orders } from '.'
import { customerEditsFor } from './customer-writes'

type CustomerWriteMethods = Pick<Implementations, 'addCustomer' | 'changeCustomer'>

export function customerWriteMethods(local: LocalData, orders: Orders): CustomerWriteMethods {
  const edits = customerEditsFor(local.customers, orders.desk.outbox)
  const queued = <T>(entry: T): T => {
    orders.changed()
    orders.driver.nudge()
    return entry
  }
  return {
    addCustomer: (input) => queued(edits.add(input)),
    changeCustomer: ({ guid, changes }) => queued(edits.change(guid, changes)),
  }
}
