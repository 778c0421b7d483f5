import type { DraftSummary } from '../../shared/orders'
import type { Implementations } from '../core/handlers'
import type { OrderServices } from './services'

export type OrderMethods = Pick<
  Implementations,
  | 'createDraft'
  | 'getDraft'
  | 'listDrafts'
  | 'updateDraft'
  | 'deleteDraft'
  | 'addDraftLines'
  | 'updateDraftLine'
  | 'removeDraftLine'
  | 'acceptDraftPrices'
  | 'sendDraft'
  | 'listOutbox'
  | 'getOutboxSummary'
  | 'retryOutbox'
  | 'editOutboxEntry'
  | 'discardOutboxEntry'
  | 'flushOutbox'
>

/**
 * The contract's order methods over the desk and the flusher. `flushSoon` starts a flush without the
 * caller waiting for it: the rep is told "queued" as soon as the entry is in SQLite.
 */
export function orderMethods(services: OrderServices, flushSoon: () => void, changed: () => void): OrderMethods {
  const { desk, flusher } = services
  return {
    createDraft: (input) => desk.check(desk.createDraft(input).id),
    getDraft: ({ id }) => desk.check(id),
    listDrafts: () =>
      desk.listDrafts().map(
        (check): DraftSummary => ({
          id: check.draft.id,
          apiGuid: check.draft.apiGuid,
          customerName: check.draft.newCustomer?.name ?? desk.customerName(check.draft.customerGuid),
          lineCount: check.draft.lines.length,
          subTotal: check.subTotal,
          errorCount: check.issues.filter((issue) => issue.severity === 'error').length,
          updatedAt: check.draft.updatedAt,
        }),
      ),
    updateDraft: ({ id, changes }) => desk.updateDraft(id, changes),
    deleteDraft: ({ id }) => {
      desk.deleteDraft(id)
      return null
    },
    addDraftLines: ({ id, lines }) => desk.addLines(id, lines),
    updateDraftLine: ({ id, lineId, qty, note }) => desk.updateLine(id, lineId, { ...(qty !== undefined ? { qty } : {}), ...(note !== undefined ? { note } : {}) }),
    removeDraftLine: ({ id, lineId }) => desk.removeLine(id, lineId),
    acceptDraftPrices: ({ id }) => desk.acceptCurrentPrices(id),
    sendDraft: async ({ id }) => {
      await services.refreshBeforeSending(id)
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
  }
}
