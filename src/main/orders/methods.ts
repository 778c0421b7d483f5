import type { Implementations } from '../../shared/contract'
import type { DraftSummary } from '../../shared/orders'
import type { CatalogLoading, OrderDetail } from '../../shared/synced'
import { CoreError } from '../errors'
import type { Orders } from '.'

export type OrderMethods = Pick<
  Implementations,
  | 'createDraft'
  | 'getDraft'
  | 'getNewCustomerForm'
  | 'keepNewCustomerForm'
  | 'listDrafts'
  | 'updateDraft'
  | 'deleteDraft'
  | 'addDraftLines'
  | 'updateDraftLine'
  | 'removeDraftLine'
  | 'restoreDraftLine'
  | 'openDraftFor'
  | 'acceptDraftPrices'
  | 'sendDraft'
  | 'listOutbox'
  | 'getOutboxSummary'
  | 'retryOutbox'
  | 'editOutboxEntry'
  | 'discardOutboxEntry'
  | 'flushOutbox'
  | 'reorder'
>

/**
 * The contract's order methods over the desk and the flusher. A send nudges the driver without
 * waiting for it: the rep is told "queued" as soon as the entry is in SQLite.
 */
export function orderMethods(
  orders: Orders,
  browse: {
    orders: { getOrder(guid: string): OrderDetail | null }
    catalogs: { catalogLoading(catalogGuid: string): CatalogLoading | null }
  },
): OrderMethods {
  const { desk, flusher, changed } = orders
  const flushSoon = () => orders.driver.nudge()
  return {
    createDraft: (input) => {
      const check = desk.check(desk.createDraft(input).id)
      // The form it was typed in has become this draft: the next new customer starts from empty.
      if (input.newCustomer) orders.newCustomerForm.keep(null)
      return check
    },
    getDraft: ({ id }) => desk.check(id),
    getNewCustomerForm: () => orders.newCustomerForm.get(),
    keepNewCustomerForm: ({ form }) => {
      orders.newCustomerForm.keep(form)
      return null
    },
    listDrafts: () =>
      desk.listDrafts().map((check): DraftSummary => ({
        id: check.draft.id,
        apiGuid: check.draft.apiGuid,
        customerGuid: check.draft.customerGuid,
        customerName: check.draft.newCustomer?.name ?? desk.customerName(check.draft.customerGuid),
        lineCount: check.draft.lines.length,
        subTotal: check.subTotal,
        errorCount: check.issues.filter((issue) => issue.severity === 'error').length,
        updatedAt: check.draft.updatedAt,
      })),
    updateDraft: ({ id, changes }) => desk.updateDraft(id, changes),
    deleteDraft: ({ id }) => {
      desk.deleteDraft(id)
      return null
    },
    addDraftLines: async ({ id, lines }) => {
      // A code the local copy lacks may be an item the supplier added since the last sync.
      const asked = await orders.askServiceForCodes(id, lines)
      const added = desk.addLines(id, lines)
      const catalogGuid = added.check.draft.catalogGuid
      const newSinceSync = asked.fetched.filter((code) =>
        lines.some((line, index) => line.sku === code && added.lineIds[index] !== null),
      )
      return {
        ...added,
        ...(newSinceSync.length > 0 ? { newSinceSync } : {}),
        // A SKU not found while the catalog is still in its first sync may not have arrived yet.
        ...(added.unknown.length > 0 && catalogGuid
          ? {
              catalogLoading: browse.catalogs.catalogLoading(catalogGuid),
              notOnLaptop: { syncedAt: orders.catalogSyncedAt(catalogGuid), serviceAsked: asked.asked },
            }
          : {}),
      }
    },
    updateDraftLine: ({ id, lineId, qty, note }) =>
      desk.updateLine(id, lineId, { ...(qty !== undefined ? { qty } : {}), ...(note !== undefined ? { note } : {}) }),
    removeDraftLine: ({ id, lineId }) => desk.removeLine(id, lineId),
    restoreDraftLine: ({ id, lineId }) => desk.restoreLine(id, lineId),
    openDraftFor: ({ customerGuid, catalogGuid }) => {
      const open = desk.drafts
        .list()
        .filter(
          (draft) => draft.customerGuid === customerGuid && draft.catalogGuid === catalogGuid && !draft.newCustomer,
        )
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0]
      if (open) return { check: desk.check(open.id), created: false }
      return { check: desk.check(desk.createDraft({ customerGuid, catalogGuid }).id), created: true }
    },
    acceptDraftPrices: ({ id }) => desk.acceptCurrentPrices(id),
    sendDraft: async ({ id }) => {
      await orders.refreshBeforeSending(id)
      const entry = desk.send(id)
      changed()
      flushSoon()
      return entry
    },
    listOutbox: () => desk.outbox.list().reverse(),
    getOutboxSummary: () => desk.outbox.summary(),
    retryOutbox: ({ apiGuid }) => {
      desk.outbox.retryNow(apiGuid)
      changed()
      flushSoon()
      return desk.outbox.summary()
    },
    editOutboxEntry: ({ apiGuid }) => {
      const draft = desk.outbox.reopenAsDraft(apiGuid)
      changed()
      return desk.check(draft.id)
    },
    discardOutboxEntry: ({ apiGuid }) => {
      desk.outbox.discard(apiGuid)
      changed()
      return desk.outbox.summary()
    },
    flushOutbox: async () => {
      desk.outbox.retryNow()
      return flusher.flush()
    },
    reorder: ({ orderGuid }) => {
      const order = browse.orders.getOrder(orderGuid)
      if (!order) throw new CoreError('NOT_FOUND', 'That order is not in the local copy. Sync, then try again.')
      if (!order.customerGuid) throw new CoreError('CONFLICT', 'The customer of that order is not on this laptop.')
      return desk.reorder({
        customerGuid: order.customerGuid,
        catalogGuid: order.catalogGuid,
        lines: order.lines.map((line) => ({
          sku: line.sku ?? '',
          name: line.name ?? '',
          qty: line.qty ?? 0,
          catalogItemGuid: line.catalogItemGuid,
        })),
      })
    },
  }
}
