import type { Implementations, Settings } from '../../shared/contract'
import type { CustomerDetail, OrderDetail } from '../../shared/synced'
import { CoreError } from '../errors'
import type { DesktopPort } from '../ports'
import { Documents, type DocumentSources } from './index'
import { TrackedOrders } from '../tracking/tracked-orders'

export type DocumentMethods = Pick<Implementations, 'getDocument' | 'printDocument' | 'saveDocumentPdf'>

export interface DocumentWiring extends Omit<DocumentSources, 'customer' | 'order'> {
  queries: {
    customers: { getCustomer(guid: string): CustomerDetail | null }
    orders: { getOrder(guid: string): OrderDetail | null }
  }
  desktop?: DesktopPort
  /** The rep's settings, read at each document: whether a quote's or an order's shows pictures. */
  settings: { get(): Pick<Settings, 'picturesOnQuotes' | 'picturesOnOrders'> }
}

const desktopOnly = 'Printing and saving a PDF come with the desktop app; in this window, use the browser’s own Print.'

/** The contract's document methods: a document reads quotes, drafts and orders, so it has a table of its own. */
export function documentMethods(wiring: DocumentWiring): DocumentMethods {
  const { queries, desktop, settings, ...sources } = wiring
  const details = new TrackedOrders(sources.local)
  const documents = new Documents({
    ...sources,
    customer: (guid) => queries.customers.getCustomer(guid),
    order: (guid) => queries.orders.getOrder(guid),
    tracking: (guid) => details.tracking(guid),
  })
  return {
    getDocument: ({ kind, ref }) => {
      const document = documents.get(kind, ref)
      const { picturesOnQuotes, picturesOnOrders } = settings.get()
      return { ...document, pictures: document.kind === 'quote' ? picturesOnQuotes : picturesOnOrders }
    },
    printDocument: async () => {
      if (!desktop?.printing) throw new CoreError('CONFLICT', desktopOnly)
      return { printed: await desktop.printing.print() }
    },
    saveDocumentPdf: async ({ fileName }) => {
      if (!desktop?.printing) throw new CoreError('CONFLICT', desktopOnly)
      return { path: await desktop.printing.savePdf(fileName) }
    },
  }
}
