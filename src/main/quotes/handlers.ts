import type { Implementations } from '../../shared/contract'
import type { UsualItems } from '../customers/usual'
import type { Database } from '../db/database'
import { Documents } from '../documents'
import { CoreError } from '../errors'
import type { Orders } from '../orders'
import type { DesktopPort } from '../ports'
import type { CustomerDetail, OrderDetail } from '../../shared/synced'
import { QuoteDesk } from './desk'

export type QuoteMethods = Pick<
  Implementations,
  | 'saveDraftAsQuote'
  | 'listQuotes'
  | 'getQuote'
  | 'updateQuote'
  | 'duplicateQuote'
  | 'deleteQuote'
  | 'convertQuote'
  | 'getUsualItems'
  | 'getDocument'
  | 'printDocument'
  | 'saveDocumentPdf'
>

export interface QuoteWiring {
  db: Database
  orders: Orders
  quotes: QuoteDesk
  usual: UsualItems
  /** When a catalog's items last finished syncing (see catalogSyncedAt): the quote desk's, shared. */
  catalogSyncedAt: (catalogGuid: string) => number | null
  queries: { getCustomer(guid: string): CustomerDetail | null; getOrder(guid: string): OrderDetail | null }
  desktop?: DesktopPort
}

/** When a catalog's items last finished syncing (local ms), or null before the first sync. */
export function catalogSyncedAt(db: Database): (catalogGuid: string) => number | null {
  const statement = db.prepare<[string], number | null>('SELECT last_success_at FROM sync_scopes WHERE scope = ?').pluck()
  return (catalogGuid) => statement.get(`catalogItems:${catalogGuid}`) ?? null
}

const desktopOnly = 'Printing and saving a PDF come with the desktop app; in this window, use the browser’s own Print.'

/** The contract's quote, usual-items and document methods. */
export function quoteMethods(wiring: QuoteWiring): QuoteMethods {
  const { quotes, orders, usual } = wiring
  const documents = new Documents({
    db: wiring.db,
    desk: orders.desk,
    quotes,
    customer: (guid) => wiring.queries.getCustomer(guid),
    order: (guid) => wiring.queries.getOrder(guid),
    catalogSyncedAt: wiring.catalogSyncedAt,
  })
  return {
    saveDraftAsQuote: ({ draftId }) => quotes.saveDraft(draftId),
    listQuotes: (input) => quotes.list({ ...(input?.customerGuid ? { customerGuid: input.customerGuid } : {}), ...(input?.query ? { query: input.query } : {}) }),
    getQuote: ({ id }) => quotes.get(id),
    updateQuote: ({ id, changes }) => quotes.update(id, changes),
    duplicateQuote: ({ id }) => quotes.duplicate(id),
    deleteQuote: ({ id }) => {
      quotes.delete(id)
      return null
    },
    convertQuote: ({ id }) => quotes.convert(id),
    getUsualItems: ({ customerGuid, limit }) => ({ items: usual.list(customerGuid, limit) }),
    getDocument: ({ kind, ref }) => documents.get(kind, ref),
    printDocument: async () => {
      if (!wiring.desktop?.printing) throw new CoreError('CONFLICT', desktopOnly)
      return { printed: await wiring.desktop.printing.print() }
    },
    saveDocumentPdf: async ({ fileName }) => {
      if (!wiring.desktop?.printing) throw new CoreError('CONFLICT', desktopOnly)
      return { path: await wiring.desktop.printing.savePdf(fileName) }
    },
  }
}
