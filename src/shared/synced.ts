/**
 * The synced data and the sync itself as the renderer sees them: catalogs, categories, catalog items
 * priced for a customer, customers, order history, sync status and progress. Part of the IPC
 * contract (contract.ts references these schemas); main's query layer returns exactly these shapes.
 */
import { z } from 'zod'
import { appErrorSchema } from './result'

/** Service guids are UUIDs, but Satchel only hands back what it was given, so any short string passes. */
const guid = z.string().min(1).max(100)
const record = z.record(z.string(), z.unknown())
const page = { limit: z.number().int().min(1).max(500).optional(), offset: z.number().int().min(0).optional() }

/** live: listed by the service; deleted: the service soft-deleted it; unlisted: gone from the service, kept for a draft. */
const recordStatusSchema = z.enum(['live', 'deleted', 'unlisted'])

const priceGroupSummarySchema = z.object({
  guid: z.string(),
  id: z.number().nullable(),
  /** The key of a catalog item's `pricing` object. */
  name: z.string(),
  isMain: z.boolean(),
})
export type PriceGroupSummary = z.infer<typeof priceGroupSummarySchema>

/**
 * A catalog whose first sync has not finished: how many of its items are in so far (they are
 * searchable as they arrive), and how many the service said there are (null until it has said).
 */
export const catalogLoadingSchema = z.object({ itemsDone: z.number(), itemsTotal: z.number().nullable() })
export type CatalogLoading = z.infer<typeof catalogLoadingSchema>

export const catalogSummarySchema = z.object({
  guid: z.string(),
  id: z.number().nullable(),
  name: z.string(),
  active: z.boolean(),
  priceGroups: z.array(priceGroupSummarySchema),
  itemCount: z.number(),
  /** Local clock, ms since the epoch: when this catalog's items last finished syncing. */
  lastSyncAt: z.number().nullable(),
  /** Set while the catalog's first sync is still bringing its items in. */
  loading: catalogLoadingSchema.nullable().optional(),
  /** The catalog the service puts a new customer on (docs/interface.md says how Satchel tells). */
  forNewCustomers: z.boolean().optional(),
})
export type CatalogSummary = z.infer<typeof catalogSummarySchema>

export const categorySummarySchema = z.object({
  id: z.number(),
  guid: z.string().nullable(),
  /** null at the top of the tree. */
  parentId: z.number().nullable(),
  name: z.string(),
  sequence: z.number().nullable(),
  hidden: z.boolean(),
  /** Live items directly in this category. */
  itemCount: z.number(),
})
export type CategorySummary = z.infer<typeof categorySummarySchema>

const priceSchema = z.object({
  /** The price for the price group; null when not offered ("N/A") or unpriced. */
  price: z.number().nullable(),
  offered: z.boolean(),
})

const catalogItemSummarySchema = priceSchema.extend({
  guid: z.string(),
  id: z.number().nullable(),
  sku: z.string(),
  name: z.string(),
  upc: z.string().nullable(),
  manufacturer: z.string().nullable(),
  active: z.boolean(),
  msrp: z.number().nullable(),
  qtyOnHand: z.number().nullable(),
  minOrderQty: z.number().nullable(),
  hasInventory: z.boolean().nullable(),
  allowBackorder: z.boolean().nullable(),
  categoryId: z.number().nullable(),
  /** The service's clock when this version was fetched: how fresh the stock figure is. */
  syncedAt: z.string().nullable(),
  /** The quantity break that lowers this price group's price: `price` each from `qty` units. Absent or null when none. */
  priceBreak: z.object({ qty: z.number(), price: z.number() }).nullable().optional(),
  /** On hand less reserved at syncedAt, the one figure every screen shows; null when stock is not counted. */
  available: z.number().nullable().optional(),
  /** Stock arriving (qty_incoming). */
  incoming: z.number().optional(),
  /** The family this item is a member of. */
  family: z.object({ guid: z.string(), title: z.string() }).nullable().optional(),
  /** Set on a family's parent: it is never ordered; its grid is. Prices for this customer's group. */
  // memberCount null: not counted in a list (a laptop whose items predate the family index would read
  // its whole catalog for it); the grid counts them when opened.
  familyOf: z
    .object({ memberCount: z.number().nullable(), priceMin: z.number().nullable(), priceMax: z.number().nullable() })
    .nullable()
    .optional(),
})
export type CatalogItemSummary = z.infer<typeof catalogItemSummarySchema>

/**
 * Whether a screen offers "Add to order" for an item: not when the customer's price group is not
 * offered it (the supplier would refuse the line); with no customer chosen yet, the question waits
 * for the customer.
 */
export function addableFor(item: { offered: boolean }, customerGuid: string | null): boolean {
  return item.offered || customerGuid === null
}

const familyCellSchema = z.object({
  guid: z.string(),
  sku: z.string(),
  upc: z.string().nullable(),
  name: z.string(),
  /** The grid's row and column labels ('' on the axis a single-axis family lacks). */
  row: z.string(),
  column: z.string(),
  price: z.number().nullable(),
  available: z.number().nullable(),
  incoming: z.number(),
  minOrderQty: z.number().nullable(),
  /** Null when a quantity may be entered; otherwise why not ("Not offered to Wholesale", "Inactive"). */
  refused: z.string().nullable(),
})
export type FamilyCell = z.infer<typeof familyCellSchema>

/** A family's entry grid: rows × columns of its members, each cell priced for the customer. */
export const itemFamilySchema = z.object({
  guid: z.string(),
  sku: z.string(),
  title: z.string(),
  catalogGuid: z.string(),
  priceGroupName: z.string().nullable(),
  /** What the rows and columns are ('Color', 'Size'); a single-axis family has one row labelled ''. */
  rowAxis: z.string(),
  columnAxis: z.string(),
  rows: z.array(z.string()),
  columns: z.array(z.string()),
  /** Members in group_sequence order; a row × column with no member has no cell. */
  cells: z.array(familyCellSchema),
  priceMin: z.number().nullable(),
  priceMax: z.number().nullable(),
  /** When the stock figures were true (the newest member's sync). */
  syncedAt: z.string().nullable(),
})
export type ItemFamily = z.infer<typeof itemFamilySchema>

export const itemFamilyLookupSchema = z
  .object({ guid, customerGuid: guid.optional(), priceGroupName: z.string().max(200).optional() })
  .strict()
export type ItemFamilyLookup = z.infer<typeof itemFamilyLookupSchema>

export const catalogItemDetailSchema = catalogItemSummarySchema.extend({
  catalogGuid: z.string(),
  description: z.string().nullable(),
  status: recordStatusSchema,
  /** The price group the price is for; null when none could be determined. */
  priceGroupName: z.string().nullable(),
  pricing: record,
  /** The item as the service sent it, fields the spec does not show included. */
  record,
})
export type CatalogItemDetail = z.infer<typeof catalogItemDetailSchema>

export const catalogItemSearchSchema = z
  .object({
    catalogGuid: guid,
    /** Word-prefix match on name, SKU, UPC, description and manufacturer; empty lists everything by name. */
    query: z.string().max(200).optional(),
    /** Items in this category and the categories below it. */
    categoryId: z.number().int().optional(),
    /** Prices for this customer's price group... */
    customerGuid: guid.optional(),
    /** ...or for this price group by name; without either, the catalog's main group. */
    priceGroupName: z.string().max(200).optional(),
    includeInactive: z.boolean().optional(),
    /**
     * Only items the service created after this moment (ISO 8601, compared with the item record's
     * created_at): a customer's "new since their last order", the brief's lastOrderedAt.
     */
    createdAfter: z.string().min(1).max(40).optional(),
    /**
     * true: a family's members are rows of their own beside its parent's (the CLI, whose scripts
     * resolve codes to items). By default a family is one row, its parent's, found by any member.
     */
    familyMembers: z.boolean().optional(),
    /**
     * false: the page's rows only, total null. The window paints the rows first and asks
     * countCatalogItems after, so a count over a large catalog never delays what the rep sees.
     */
    withTotal: z.boolean().optional(),
    ...page,
  })
  .strict()
export type CatalogItemSearch = z.infer<typeof catalogItemSearchSchema>

/** Matches are counted no further than this: past it the rep narrows the search, and "10,000+" says so. */
export const ITEM_COUNT_CAP = 10_000

/** How many items a search matches: exact up to the cap, otherwise the cap with `capped` set ("10,000+"). */
export const catalogItemCountSchema = z.object({ total: z.number(), capped: z.boolean() })
export type CatalogItemCount = z.infer<typeof catalogItemCountSchema>

/** The same search without its page: what countCatalogItems counts. */
export const catalogItemCountInputSchema = catalogItemSearchSchema.omit({ limit: true, offset: true, withTotal: true })
export type CatalogItemCountInput = z.infer<typeof catalogItemCountInputSchema>

export const catalogItemSearchResultSchema = z.object({
  items: z.array(catalogItemSummarySchema),
  /** Rows beyond this page exist. */
  more: z.boolean(),
  /** The match count as countCatalogItems gives it; null when the search asked for rows only. */
  total: z.number().nullable(),
  /** `total` stopped at ITEM_COUNT_CAP: there are at least that many. */
  totalCapped: z.boolean(),
  priceGroupName: z.string().nullable(),
  /** Why that group applies when it is not simply the customer's own ("Retail prices: Key Account is not a price group of this catalog"). */
  priceGroupNote: z.string().nullable().optional(),
  /** Set while the catalog's first sync is still bringing its items in: the results are partial. */
  loading: catalogLoadingSchema.nullable().optional(),
})
export type CatalogItemSearchResult = z.infer<typeof catalogItemSearchResultSchema>

export const catalogItemLookupSchema = z
  .object({
    catalogGuid: guid.optional(),
    guid: guid.optional(),
    /** Exact, case-insensitive: what a barcode scanner types. */
    sku: z.string().min(1).max(200).optional(),
    customerGuid: guid.optional(),
    priceGroupName: z.string().max(200).optional(),
  })
  .strict()
  .refine((lookup) => lookup.guid !== undefined || lookup.sku !== undefined, {
    message: 'Give guid or sku',
    path: ['guid'],
  })
export type CatalogItemLookup = z.infer<typeof catalogItemLookupSchema>

/**
 * A customer made on this laptop that the local copy does not hold yet: its outbox entry's key (its
 * customerLocalId, and its guid here until the service gives one), where that entry is, and what
 * went wrong in the rep's words.
 */
const madeHereSchema = z.object({
  key: z.string(),
  state: z.enum(['waiting', 'needsAttention', 'refused', 'sent']),
  problem: z.string().nullable(),
  /** Made with an order still in the outbox (key: that order's api_guid): it takes no other order before that one is sent. */
  withOrder: z.boolean().optional(),
})
export type MadeHere = z.infer<typeof madeHereSchema>

const customerSummarySchema = z.object({
  guid: z.string(),
  id: z.number().nullable(),
  name: z.string(),
  customerInternalId: z.string().nullable(),
  email: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  active: z.boolean(),
  /** Set on a customer made on this laptop and not yet in the local copy; null or absent otherwise. */
  madeHere: madeHereSchema.nullable().optional(),
})
export type CustomerSummary = z.infer<typeof customerSummarySchema>

const addressSchema = z.object({
  guid: z.string().nullable(),
  kind: z.enum(['billTo', 'shipTo']),
  name: z.string().nullable(),
  companyName: z.string().nullable(),
  addressLineOne: z.string().nullable(),
  addressLineTwo: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  postalCode: z.string().nullable(),
  country: z.string().nullable(),
  isMainShipTo: z.boolean(),
  record,
})
export type Address = z.infer<typeof addressSchema>

export const customerDetailSchema = customerSummarySchema.extend({
  status: recordStatusSchema,
  phone: z.string().nullable(),
  requirePo: z.boolean(),
  hidePricing: z.boolean(),
  priceGroup: z.object({ id: z.number(), name: z.string().nullable() }).nullable(),
  lockCatalogId: z.number().nullable(),
  /** The catalog the customer orders from: the one locked to, else their price group's; null when neither is here. */
  catalogGuid: z.string().nullable().optional(),
  creditLimit: z.number().nullable(),
  openBalance: z.number().nullable(),
  standingPo: z.string().nullable().optional(),
  requirePayment: z.boolean().optional(),
  taxExempt: z.boolean().optional(),
  notes: z.string().nullable(),
  addresses: z.array(addressSchema),
  record,
})
export type CustomerDetail = z.infer<typeof customerDetailSchema>

export const customerSearchSchema = z
  .object({
    query: z.string().max(200).optional(),
    includeInactive: z.boolean().optional(),
    /** The customers made on this laptop that are not in the local copy yet come first (the Customers list). */
    withMadeHere: z.boolean().optional(),
    ...page,
  })
  .strict()
/**
 * The customers still in their first sync: how many have come (0 before it began) of how many (null
 * until the service said). Null once they have synced once.
 */
const customersLoadingSchema = z.object({ customersDone: z.number(), customersTotal: z.number().nullable() })
export type CustomersLoading = z.infer<typeof customersLoadingSchema>
export const customerSearchResultSchema = z.object({
  customers: z.array(customerSummarySchema),
  total: z.number(),
  loading: customersLoadingSchema.nullable(),
})
export type CustomerSearchResult = z.infer<typeof customerSearchResultSchema>

const orderSummarySchema = z.object({
  guid: z.string(),
  id: z.number().nullable(),
  /** The order number as the service displays it. */
  name: z.string().nullable(),
  apiGuid: z.string().nullable(),
  customerGuid: z.string().nullable(),
  customerName: z.string().nullable(),
  catalogGuid: z.string().nullable(),
  /** Unknown states are named "State <id>". */
  state: z.object({ id: z.number().nullable(), name: z.string() }),
  poNo: z.string().nullable(),
  subTotal: z.number().nullable(),
  grandTotal: z.number().nullable(),
  createdAt: z.string().nullable(),
  lineCount: z.number(),
})
export type OrderSummary = z.infer<typeof orderSummarySchema>

const orderLineSchema = z.object({
  itemNo: z.number().nullable(),
  catalogItemGuid: z.string().nullable(),
  catalogItemId: z.number().nullable(),
  sku: z.string().nullable(),
  name: z.string().nullable(),
  qty: z.number().nullable(),
  note: z.string().nullable(),
  /** net_price and total as the service gave them; null where it did not (its order list leaves them out). */
  unitPrice: z.number().nullable(),
  lineTotal: z.number().nullable(),
})
export type OrderLine = z.infer<typeof orderLineSchema>

/** The order's money as the service computed it, never recomputed here; null where it sent none. */
const orderTotalsSchema = z.object({
  subTotal: z.number().nullable(),
  tax: z.number().nullable(),
  shipping: z.number().nullable(),
  labor: z.number().nullable(),
  other: z.number().nullable(),
  /** discount_total: what was taken off the order. */
  discount: z.number().nullable(),
  grandTotal: z.number().nullable(),
})
export type OrderTotals = z.infer<typeof orderTotalsSchema>

export const orderDetailSchema = orderSummarySchema.extend({
  lines: z.array(orderLineSchema),
  totals: orderTotalsSchema,
  record,
})
export type OrderDetail = z.infer<typeof orderDetailSchema>

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'A date is written YYYY-MM-DD')
export const orderListSchema = z
  .object({
    customerGuid: guid.optional(),
    /** Order number, PO or customer name, any part of it. */
    query: z.string().max(200).optional(),
    stateId: z.number().int().optional(),
    /** Placed on or after this day, and on or before `to` (this laptop's days). */
    from: day.optional(),
    to: day.optional(),
    ...page,
  })
  .strict()
const orderStateCountSchema = z.object({ id: z.number().nullable(), name: z.string(), count: z.number() })
/** An order sent from this laptop, as the orders list shows it until a sync brings it into the history. */
const sentOrderSummarySchema = z.object({
  apiGuid: z.string(),
  orderGuid: z.string().nullable(),
  orderName: z.string().nullable(),
  orderStateId: z.number().nullable(),
  customerGuid: z.string().nullable(),
  customerName: z.string(),
  poNo: z.string().nullable(),
  sentAt: z.string(),
  lineCount: z.number(),
  /** What the rep saw. */
  subTotal: z.number(),
  /** The service's total from its confirmation, the one the history will show; null when it gave none. */
  grandTotal: z.number().nullable(),
})
export type SentOrderSummary = z.infer<typeof sentOrderSummarySchema>

export const orderListResultSchema = z.object({
  orders: z.array(orderSummarySchema),
  total: z.number(),
  /**
   * Orders sent from this laptop that the synced history does not hold yet (matched by api_guid and
   * by order guid, whatever their case), under the same search and filters as `orders`.
   */
  sentNotSynced: z.array(sentOrderSummarySchema),
  /** Every state the list's orders are in (for the filter), whatever the search and filters. */
  states: z.array(orderStateCountSchema),
})

// ---- sync ----------------------------------------------------------------------------------------

export const resourceNames = ['catalogs', 'priceGroups', 'customers', 'catalogItems', 'orders'] as const
export type ResourceName = (typeof resourceNames)[number]

export const applyCountsSchema = z.object({
  fetched: z.number(),
  upserted: z.number(),
  deleted: z.number(),
  /** Rows refused as impossible (a negative or non-finite price, a bad key…), so no order is priced from them; their last good copy is kept. Absent when none. */
  rejected: z.number().optional(),
})

export const syncProgressSchema = z.object({
  /** 'catalogs', 'customers', 'orders' or 'catalogItems:<catalog guid>'. */
  scope: z.string(),
  resource: z.enum(resourceNames),
  catalogGuid: z.string().nullable(),
  phase: z.enum(['listing', 'delta', 'catchUp', 'verify']),
  pagesDone: z.number(),
  /** null until the service has said how many. */
  pagesTotal: z.number().nullable(),
  rowsDone: z.number(),
  rowsTotal: z.number().nullable(),
  /**
   * A catalog's items: which catalog of the run's this is, and how many it takes, so a bar that starts
   * again at 0% is seen to be the next catalog's (sync/progress.ts). Absent for the other steps.
   */
  catalogOf: z.object({ number: z.number().int(), count: z.number().int() }).optional(),
})
export type SyncProgress = z.infer<typeof syncProgressSchema>

/**
 * Catalog work an upgrade left for after start-up on a large catalog (the items copied into their new
 * table, a family index built, counts taken). Drafts, the outbox and sending work meanwhile.
 */
export const catalogUpdateSchema = z.object({
  updating: z.boolean(),
  /**
   * The work under way, as the core names its jobs (local/catalog-update-jobs.ts), so the screens can say
   * what it changes for the rep meanwhile; null when none is shown.
   */
  job: z.enum(['leanItems', 'families', 'filters', 'itemKeys']).nullable(),
  /** How far the work under way has got, 0–100. */
  percent: z.number(),
  /** False while the items are copied: those not copied yet are not found by browsing or search. */
  itemsBrowsable: z.boolean(),
})
export type CatalogUpdate = z.infer<typeof catalogUpdateSchema>

const scopeReportSchema = z.object({
  scope: z.string(),
  mode: z.enum(['full', 'delta']),
  resumed: z.boolean(),
  pagesFetched: z.number(),
  cursorReset: z.boolean(),
  driftRepaired: z.boolean(),
  verifyPending: z.boolean(),
  error: z.string().nullable(),
  /** What the run had to work around in this scope, such as a cursor it did not trust; absent when nothing. */
  warnings: z.array(z.string()).optional(),
  /** All, or most (over half), of the rows the scope received were refused as impossible; absent otherwise. */
  refused: z.object({ rows: z.number(), of: z.number() }).optional(),
})

export const syncReportSchema = z.object({
  ok: z.boolean(),
  full: z.boolean(),
  resources: z.object(
    Object.fromEntries(resourceNames.map((name) => [name, applyCountsSchema])) as Record<
      ResourceName,
      typeof applyCountsSchema
    >,
  ),
  scopes: z.array(scopeReportSchema),
  durationMs: z.number(),
  error: appErrorSchema.pick({ code: true, message: true }).nullable(),
  /** Full orders fetched after the listings (one request each), failed (fetched next run), and still waiting. */
  orderDetails: z
    .object({
      fetched: z.number(),
      failed: z.number(),
      unreadable: z.array(z.object({ guid: z.string(), reason: z.string() })).optional(),
      waiting: z.number(),
    })
    .optional(),
})
export type SyncReport = z.infer<typeof syncReportSchema>

/**
 * What a run that has started waits for before it syncs anything: the catalog update an upgrade left
 * (it writes the same rows). One name per reason, so a reason added later needs only its words.
 */
const syncWaitSchema = z.enum(['catalogUpdate'])
export type SyncWait = z.infer<typeof syncWaitSchema>

export const syncStatusSchema = z.object({
  running: z.boolean(),
  progress: syncProgressSchema.nullable(),
  /** Set while a running sync waits (see syncWaitSchema); null while it syncs, or when none runs. */
  waitingFor: syncWaitSchema.nullable(),
  /** Local clock, ms: the last run that finished without error. */
  lastSyncAt: z.number().nullable(),
  lastReport: syncReportSchema.nullable(),
  /** Local clock, ms: when the next background sync is due. */
  nextSyncAt: z.number().nullable(),
  scopes: z.array(
    z.object({
      scope: z.string(),
      lastSyncAt: z.number().nullable(),
      /** An interrupted run that the next run resumes. */
      unfinished: z.boolean(),
      lastError: z.string().nullable(),
    }),
  ),
})
export type SyncStatus = z.infer<typeof syncStatusSchema>

export const syncNowSchema = z.object({ full: z.boolean().optional() }).strict().optional()
