/**
 * Quotes, printable documents and a customer's usual items as they cross the IPC boundary. All three
 * are built on this laptop from what is already synced: nothing here needs the ordering service.
 */
import { z } from 'zod'
import { draftCheckSchema, lineQtySchema, shipToSchema } from './orders'

const id = z.number().int().positive()
const guid = z.string().min(1).max(100)
const text = (max: number) => z.string().max(max)
/** A calendar day, YYYY-MM-DD: a quote is valid until the end of that day wherever the rep is. */
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter the date as YYYY-MM-DD')

const quoteLineSchema = z.object({
  lineId: z.string(),
  catalogItemGuid: z.string(),
  sku: z.string(),
  name: z.string(),
  qty: z.number(),
  note: z.string(),
  /** The price quoted; null when the item was not offered to the customer then. */
  unitPrice: z.number().nullable(),
  lineTotal: z.number().nullable(),
})
export type QuoteLine = z.infer<typeof quoteLineSchema>

export const quoteSchema = z.object({
  id: z.number().int(),
  /** Q-<device prefix>-0001: unique on this laptop, never reused, even after a delete. */
  number: z.string(),
  customerGuid: z.string(),
  customerName: z.string(),
  catalogGuid: z.string(),
  priceGroupGuid: z.string().nullable(),
  priceGroupName: z.string().nullable(),
  poNo: z.string(),
  note: z.string(),
  shippingInstructions: z.string(),
  shipTo: shipToSchema.nullable(),
  lines: z.array(quoteLineSchema),
  subTotal: z.number(),
  validUntil: day,
  /** When the prices quoted were last synced (ISO); null when the catalog had never finished a sync. */
  pricesAsOf: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Set once the quote became a draft; a converted quote can be read, printed and duplicated, not edited. */
  convertedAt: z.string().nullable(),
  convertedDraftId: z.number().int().nullable(),
})
export type Quote = z.infer<typeof quoteSchema>

const quoteSummarySchema = quoteSchema
  .pick({
    id: true,
    number: true,
    customerGuid: true,
    customerName: true,
    subTotal: true,
    validUntil: true,
    createdAt: true,
    updatedAt: true,
    convertedAt: true,
    convertedDraftId: true,
  })
  .extend({ lineCount: z.number().int(), expired: z.boolean() })
export type QuoteSummary = z.infer<typeof quoteSummarySchema>

/** One line whose terms differ between the quote and the draft made from it. */
const quoteChangeSchema = z.object({
  sku: z.string(),
  name: z.string(),
  qty: z.number(),
  kind: z.enum(['price', 'notOffered', 'gone']),
  quotedPrice: z.number().nullable(),
  currentPrice: z.number().nullable(),
  /** A sentence for the rep: "$12.00 → $13.50", "no longer in the catalog". */
  message: z.string(),
})
export type QuoteChange = z.infer<typeof quoteChangeSchema>

const usualItemSchema = z.object({
  guid: z.string(),
  sku: z.string(),
  name: z.string(),
  catalogGuid: z.string(),
  /** Orders in the last 12 months with this item. */
  orders: z.number().int(),
  lastQty: z.number(),
  lastOrderedAt: z.string(),
  /** Today's price for the customer; null when not offered or pricing is hidden. */
  price: z.number().nullable(),
  offered: z.boolean(),
  /** Offered and in stock (or stock does not limit it): "add all" adds it. */
  available: z.boolean(),
  /** Why it cannot be added, or a stock caution: "not offered any more", "out of stock as of …". */
  note: z.string().nullable(),
  upc: z.string().nullable().optional(),
  /** The one available figure (on hand less reserved) as of stockAsOf; null when stock is not counted. */
  qtyAvailable: z.number().nullable().optional(),
  incoming: z.number().optional(),
  stockAsOf: z.string().nullable().optional(),
})
export type UsualItem = z.infer<typeof usualItemSchema>

const documentKinds = ['quote', 'draft', 'queued', 'order'] as const
export type DocumentKind = (typeof documentKinds)[number]

const documentLineSchema = z.object({
  /** The catalog item, where the line names one: its thumbnail when the document shows pictures. */
  itemGuid: z.string().nullable().optional(),
  sku: z.string(),
  name: z.string(),
  qty: z.number(),
  unitPrice: z.number().nullable(),
  lineTotal: z.number().nullable(),
  note: z.string().nullable(),
  /** A sent order whose full copy sync fetched: what of the line has shipped, and what is backordered. */
  shipped: z.number().optional(),
  backordered: z.number().optional(),
  /**
   * The one available figure for the item at the last sync (null: not counted, or the item is not in
   * the local catalog). On every kind, a sent order too: what is available now, as of stockAsOf, not
   * what was when it left, which no copy keeps (and the service's reserve for it is in the figure
   * once synced).
   */
  available: z.number().nullable().optional(),
})

const printableDocumentSchema = z.object({
  kind: z.enum(documentKinds),
  /** "Quote", "Draft order", "Order (waiting to be sent)", "Order". */
  title: z.string(),
  /** The quote's number, the draft's, or the service's order number once it has one. */
  number: z.string().nullable(),
  /** The order's state at the service, for a sent order. */
  state: z.string().nullable(),
  date: z.string().nullable(),
  validUntil: z.string().nullable(),
  supplier: z.object({ name: z.string(), lines: z.array(z.string()) }),
  customer: z.object({ name: z.string(), lines: z.array(z.string()) }),
  shipTo: z.array(z.string()),
  poNo: z.string().nullable(),
  note: z.string().nullable(),
  lines: z.array(documentLineSchema),
  subTotal: z.number().nullable(),
  /** What the service added to a sent order's lines (tax, shipping, other): its total less the sub-total. */
  charges: z.number().nullable(),
  grandTotal: z.number().nullable(),
  pricesAsOf: z.string().nullable(),
  /** When the lines' available figures were synced (the catalog's last sync); null when no line has one. */
  stockAsOf: z.string().nullable().optional(),
  /** Where the line prices will come from, when some are not on this laptop yet; null otherwise. */
  pricesNote: z.string().nullable(),
  /** The customer sees no prices: every price above is null. */
  hidePricing: z.boolean(),
  /** Each line shows its item's thumbnail, from the cache: the settings picturesOnQuotes and picturesOnOrders. */
  pictures: z.boolean().optional(),
  /** A name for the saved PDF. */
  fileName: z.string(),
})
export type PrintableDocument = z.infer<typeof printableDocumentSchema>

const quoteChangesSchema = z
  .object({
    validUntil: day.optional(),
    poNo: text(100).optional(),
    note: text(4000).optional(),
    /** The lines kept, with their quantities; a line left out is removed. */
    lines: z
      .array(z.object({ lineId: z.string().min(1).max(64), qty: lineQtySchema }).strict())
      .max(500)
      .optional(),
  })
  .strict()

/** The quotes, documents and usual-items part of the IPC contract; spread into `contract` in contract.ts. */
export const quotesContract = {
  /**
   * The draft becomes a quote: it is moved, not copied, so converting the quote later cannot leave a
   * second draft alike beside the first; `keepDraft` keeps it too, when the rep says so.
   */
  saveDraftAsQuote: {
    input: z.object({ draftId: id, keepDraft: z.boolean().optional() }).strict(),
    output: quoteSchema,
  },
  listQuotes: {
    input: z
      .object({ customerGuid: guid.optional(), query: text(200).optional() })
      .strict()
      .optional(),
    output: z.array(quoteSummarySchema),
  },
  getQuote: { input: z.object({ id }).strict(), output: quoteSchema },
  updateQuote: { input: z.object({ id, changes: quoteChangesSchema }).strict(), output: quoteSchema },
  duplicateQuote: { input: z.object({ id }).strict(), output: quoteSchema },
  deleteQuote: { input: z.object({ id }).strict(), output: z.null() },
  /** A new draft with the quote's lines at today's prices; `changes` lists every line whose terms moved. */
  convertQuote: {
    input: z.object({ id }).strict(),
    output: z.object({ check: draftCheckSchema, changes: z.array(quoteChangeSchema) }),
  },
  getUsualItems: {
    input: z.object({ customerGuid: guid, limit: z.number().int().min(1).max(200).optional() }).strict(),
    output: z.object({ items: z.array(usualItemSchema) }),
  },
  getDocument: {
    input: z.object({ kind: z.enum(documentKinds), ref: z.string().min(1).max(100) }).strict(),
    output: printableDocumentSchema,
  },
  /** The system print dialog for the window as it is (the document view). Desktop app only. */
  printDocument: { input: z.undefined(), output: z.object({ printed: z.boolean() }) },
  /** printToPDF, then a save dialog; `path` is null when the rep cancelled. Desktop app only. */
  saveDocumentPdf: {
    input: z.object({ fileName: z.string().min(1).max(200) }).strict(),
    output: z.object({ path: z.string().nullable() }),
  },
} as const
