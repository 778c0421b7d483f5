/**
 * The writes-after-Send methods of the contract: queue a submit or a change to a sent order, and the
 * rep's choice on a conflict, or among a new customer's candidates. Queued in the one outbox, on disk before the answer, and nudged out at
 * once; with an API key alone submits and changes are not offered (the supplier takes them from a
 * user session only), and the answer says to sign in as a user.
 */
import type { Implementations } from '../../shared/contract'
import { signInAsUser } from '../../shared/writes'
import type { LocalData } from '../local/data'
import { CoreError } from '../errors'
import type { Orders } from '../orders'
import { orderTargets } from './order-targets'
import { SentOrderWrites } from './order-writes'

type WriteMethods = Pick<
  Implementations,
  | 'submitSentOrder'
  | 'changeSentOrder'
  | 'getSentOrderHeader'
  | 'applyMyChange'
  | 'dropMyChange'
  | 'chooseCustomerMatch'
>

/** `signedInAsUser`: whether the saved connection is a user session (settings/, handed in by the core). */
export function sentOrderWriteMethods(
  local: LocalData,
  orders: Orders,
  signedInAsUser: () => Promise<boolean>,
): WriteMethods {
  const outbox = orders.desk.outbox
  const writes = new SentOrderWrites(outbox, orderTargets(local, outbox))
  const asUser = async () => {
    if (!(await signedInAsUser())) throw new CoreError('UNAUTHORIZED', signInAsUser)
  }
  const queued = <T>(entry: T): T => {
    orders.changed()
    orders.driver.nudge()
    return entry
  }
  return {
    submitSentOrder: async ({ order, fulfilment }) => {
      await asUser()
      return queued(writes.submit(order, fulfilment))
    },
    changeSentOrder: async ({ order, changes }) => {
      await asUser()
      return queued(writes.change(order, changes))
    },
    getSentOrderHeader: ({ order }) => ({ record: writes.headerAsAsked(order) }),
    applyMyChange: ({ apiGuid }) => {
      outbox.writes.applyMine(apiGuid)
      return queued(outbox.summary())
    },
    dropMyChange: ({ apiGuid }) => {
      outbox.writes.dropMine(apiGuid)
      orders.changed()
      return outbox.summary()
    },
    chooseCustomerMatch: ({ apiGuid, customerGuid }) => {
      outbox.writes.chooseCustomer(apiGuid, customerGuid)
      return queued(outbox.summary())
    },
  }
}
