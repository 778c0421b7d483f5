/**
 * Drafts and outbox entries as they cross the IPC boundary. The draft is the rep's working copy;
 * an outbox entry is a frozen request that Satchel sends exactly once.
 */
import { z } from 'zod'
import { catalogLoadingSchema } from './synced'
import { typedText } from './typed-text'

const uuid = z.uuid()
const text = (max: number) => z.string().max(max)

export const addressInputSchema = z
  .object({
    name: typedText(200).optional(),
    company_name: typedText(200).optional(),
    address_line_one: typedText(200).min(1, 'Enter the street address'),
    address_line_two: typedText(200).optional(),
    city: typedText(100).min(1, 'Enter the city'),
    state: typedText(100).optional(),
    postal_code: typedText(20).optional(),
    country: typedText(100).optional(),
    phone: typedText(50).optional(),
    email: typedText(200).optional(),
  })
  .strict()
export type AddressInput = z.infer<typeof addressInputSchema>
/** An address's fields as the interface names them, in the order a form shows them. */
export const addressFieldNames = addressInputSchema.keyof().options

/** A customer captured in the field, created by the service together with the first order. */
export const newCustomerSchema = z
  .object({
    name: typedText(200).trim().min(1, 'Enter the customer’s name'),
    email: z.email('Enter a valid email address').optional(),
    phone: typedText(50).optional(),
    customer_internal_id: typedText(100).optional(),
    billTo: addressInputSchema.optional(),
    shipTo: addressInputSchema.optional(),
    contact: z
      .object({ name: typedText(200).min(1), email: z.email().optional() })
      .strict()
      .optional(),
    note: typedText(4000).optional(),
  })
  .strict()
export type NewCustomer = z.infer<typeof newCustomerSchema>

const formAddressSchema = z
  .object({
    address_line_one: text(4000),
    address_line_two: text(4000),
    city: text(4000),
    state: text(4000),
    postal_code: text(4000),
    country: text(4000),
  })
  .strict()
/**
 * The new-customer form as the rep left it, not yet a draft: kept on every keystroke and checked for
 * nothing but size, as it is half typed (an email without its domain yet, no name so far).
 */
const newCustomerFormSchema = z
  .object({
    name: text(4000),
    email: text(4000),
    phone: text(4000),
    customerNumber: text(4000),
    contactName: text(4000),
    contactEmail: text(4000),
    note: text(4000),
    catalogGuid: text(100),
    sameShipTo: z.boolean(),
    billTo: formAddressSchema,
    shipTo: formAddressSchema,
  })
  .strict()
export type NewCustomerForm = z.infer<typeof newCustomerFormSchema>

export const shipToSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('customerAddress'), addressGuid: uuid }).strict(),
  z.object({ kind: z.literal('new'), address: addressInputSchema }).strict(),
])
export type ShipTo = z.infer<typeof shipToSchema>

/** The most of one item a line may order. */
const maxLineQty = 1_000_000

/**
 * The quantity rule, wherever a quantity enters Satchel (the renderer's calls, the CLI's draft file)
 * and in the core's draft check: a whole number from 1 to 1,000,000. Whole because the ordering
 * service's catalog item has no field that marks an item as sold in fractions (by weight or length),
 * so no item is; bounded so that a quantity times a price stays a number. Returns what is wrong (one
 * message, the first rule broken), or null.
 */
export function lineQtyProblem(qty: number): string | null {
  if (!Number.isFinite(qty)) return 'Enter the quantity as a number'
  if (qty <= 0) return 'Enter a quantity above zero'
  if (qty > maxLineQty) return 'Enter a quantity of at most 1,000,000'
  if (!Number.isInteger(qty)) return 'Enter a whole number: items are ordered in whole units'
  return null
}

/**
 * The most lines one order may hold. Every check and the frozen request walk all of them, and the
 * service takes an order in one request: a draft file or a paste past this is a mistake to report,
 * not an order to build.
 */
export const maxOrderLines = 5000

/** Why an order past `maxOrderLines` cannot be one order, and what to do instead. */
export function tooManyLinesMessage(): string {
  return `An order may hold at most ${maxOrderLines.toLocaleString('en-US')} lines; split it into several orders.`
}

/** A line's quantity as the contract takes it (see `lineQtyProblem`). */
export const lineQtySchema = z.number({ error: 'Enter the quantity as a number' }).superRefine((qty, ctx) => {
  const problem = lineQtyProblem(qty)
  if (problem) ctx.addIssue({ code: 'custom', message: problem })
})

export const draftLineSchema = z.object({
  /** Stable within the draft, so the renderer can edit one line while others are added. */
  lineId: z.string().min(1).max(64),
  catalogItemGuid: uuid,
  sku: z.string(),
  name: z.string(),
  /**
   * Any finite number, so a draft stored before the quantity rule still loads; the draft check holds
   * it to `lineQtySchema` and refuses to send it otherwise.
   */
  qty: z.number(),
  note: text(1000),
  /** The unit price the rep saw when adding the line (null where pricing is hidden or not offered). */
  unitPriceSeen: z.number().nullable(),
  /** How many could be ordered when the rep added the line; null when stock did not limit it. */
  qtyAvailableSeen: z.number().nullable(),
})
export type DraftLine = z.infer<typeof draftLineSchema>

/**
 * What the supplier said when it refused this order, kept on the draft the rep reopens to fix it. A
 * line's message holds while the line is as it was sent (same quantity and note): once the rep
 * changes or removes it, the message is about a line that no longer exists. Nothing here blocks
 * sending: Send asks the supplier again.
 */
export const draftRejectionSchema = z.object({
  /** When the supplier's answer was recorded. */
  at: z.string(),
  /** What the service said of the order as a whole, or null. */
  message: z.string().nullable(),
  lines: z.array(
    z.object({
      /** The draft line the message names; null when the service did not say which. */
      lineId: z.string().nullable(),
      sku: z.string().nullable(),
      /** The line as it was sent. */
      sentQty: z.number().nullable(),
      sentNote: z.string().nullable(),
      message: z.string(),
    }),
  ),
})
export type DraftRejection = z.infer<typeof draftRejectionSchema>

export const draftSchema = z.object({
  id: z.number().int(),
  apiGuid: uuid,
  customerGuid: uuid.nullable(),
  newCustomer: newCustomerSchema.nullable(),
  /**
   * The key of a customer made on this laptop (addCustomer) the draft is for: its newCustomer stands
   * for it, and the order waits for it in the outbox, then goes for the guid the service gave it.
   */
  customerLocalId: uuid.nullable().optional(),
  catalogGuid: uuid.nullable(),
  priceGroupGuid: uuid.nullable(),
  poNo: text(100),
  note: text(4000),
  shippingInstructions: text(4000),
  shipTo: shipToSchema.nullable(),
  remainInPreliminary: z.boolean(),
  lines: z.array(draftLineSchema),
  /** Set on an order the supplier refused and the rep reopened (Outbox → Edit); absent or null otherwise. */
  rejection: draftRejectionSchema.nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Draft = z.infer<typeof draftSchema>

const draftIssueSchema = z.object({
  /**
   * 'field' problems name a draft field (poNo, customer…); 'line' problems carry the lineId, and
   * also `field: 'qty'` when the line's quantity (or the total it makes) is what is wrong.
   */
  field: z.string().nullable(),
  lineId: z.string().nullable(),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
  /**
   * True for the supplier's own words from when it refused this order (see draftRejectionSchema):
   * shown as a problem, yet a warning, because only the supplier can say whether it still holds.
   */
  supplier: z.boolean().optional(),
})
export type DraftIssue = z.infer<typeof draftIssueSchema>

const pricedLineSchema = z.object({
  lineId: z.string(),
  /** The price that applies at this quantity (qty break included); null when not offered or unknown. */
  unitPrice: z.number().nullable(),
  lineTotal: z.number().nullable(),
  /** The current local price differs from the one the rep saw when adding the line. */
  priceChanged: z.boolean(),
  /** In stock when the rep added the line, short of the quantity now. */
  availabilityChanged: z.boolean(),
  /**
   * The item's quantity break when the line is on it (applies) or near it (toGo more units reach it);
   * absent or null otherwise.
   */
  priceBreak: z
    .object({ qty: z.number(), unitPrice: z.number(), applies: z.boolean(), toGo: z.number().nullable() })
    .nullable()
    .optional(),
})
export type PricedLine = z.infer<typeof pricedLineSchema>

export const draftCheckSchema = z.object({
  draft: draftSchema,
  issues: z.array(draftIssueSchema),
  lines: z.array(pricedLineSchema),
  subTotal: z.number(),
  /**
   * The price group the check priced the lines with: the draft's own, else the customer's, else the
   * catalog's main group. Null when there is no catalog or no group applies (an issue says so).
   */
  priceGroup: z.object({ guid: uuid, name: z.string() }).nullable(),
  /** True when no issue is an error: the draft may be sent. */
  sendable: z.boolean(),
  /** The customer's account as of the last sync; null for a new customer or none chosen. */
  account: z
    .object({
      creditLimit: z.number().nullable(),
      openBalance: z.number().nullable(),
      /** Credit left before this order: limit less open balance (below 0 when already over). */
      room: z.number().nullable(),
      /** The open balance with this order would pass the credit limit: Send warns, the supplier decides. */
      overLimit: z.boolean(),
      standingPo: z.string(),
      requirePayment: z.boolean(),
      taxExempt: z.boolean(),
    })
    .nullable()
    .optional(),
})
export type DraftCheck = z.infer<typeof draftCheckSchema>

/**
 * `conflict`: a change the supplier changed too, kept with both values until the rep picks one;
 * `refused`: a write after Send the supplier said no to, in its words, tried once.
 */
const outboxStates = ['queued', 'sending', 'retrying', 'needsAttention', 'sent', 'conflict', 'refused'] as const
export type OutboxState = (typeof outboxStates)[number]

/** Every kind of write the outbox sends, each by its own rule (src/shared/writes.ts). */
const outboxKinds = ['order', 'submit', 'orderChange', 'newCustomer', 'customerChange'] as const
export type OutboxKind = (typeof outboxKinds)[number]

export const outboxLineErrorSchema = z.object({
  /** Index of the line in the sent order (0-based), or null when the service did not say which. */
  lineIndex: z.number().int().nullable(),
  catalogItemGuid: z.string().nullable(),
  sku: z.string().nullable(),
  message: z.string(),
})
export type OutboxLineError = z.infer<typeof outboxLineErrorSchema>

/**
 * A customer of the supplier's that may be the one a new-customer entry made, for the rep to
 * recognise: what the rep would check against the form (phone, email, address).
 */
const customerCandidateSchema = z.object({
  guid: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  /** The bill-to address on one line ("12 Harbor St, Portland OR 97201"). */
  address: z.string().nullable(),
  /** When the supplier made it (its created_at). */
  createdAt: z.string().nullable(),
})
export type CustomerCandidate = z.infer<typeof customerCandidateSchema>

export const outboxEntrySchema = z.object({
  apiGuid: uuid,
  state: z.enum(outboxStates),
  customerGuid: z.string().nullable(),
  customerName: z.string(),
  orderGuid: z.string().nullable(),
  orderName: z.string().nullable(),
  orderStateId: z.number().nullable(),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  errors: z.array(outboxLineErrorSchema),
  nextAttemptAt: z.string().nullable(),
  queuedAt: z.string(),
  sentAt: z.string().nullable(),
  /**
   * An attempt ended without the service's answer, so the supplier may hold this order already
   * (it is resent with the same api_guid, or looked for in the supplier's order list); until that is
   * settled it can be neither edited nor discarded.
   */
  mayBeWithSupplier: z.boolean(),
  lineCount: z.number().int(),
  subTotal: z.number(),
  /** The service's totals differ from what the rep saw (sub_total), to be checked with the customer. */
  totalsDiffer: z.object({ repSubTotal: z.number(), serverSubTotal: z.number() }).nullable(),
  /** What the entry writes; an entry without it is an order. */
  kind: z.enum(outboxKinds).optional(),
  /** A write after Send in the rep's words ("Hold SO-1042", "Submit SO-1042: take what is there"). */
  title: z.string().optional(),
  /** The entry it waits for (its order, its new customer), by key, while that one is not sent. */
  waitsFor: z.string().nullable().optional(),
  /** A conflict's fields: what the rep's change started from, the supplier's value now and the rep's. */
  conflict: z
    .array(z.object({ field: z.string(), label: z.string(), was: z.unknown(), theirs: z.unknown(), mine: z.unknown() }))
    .optional(),
  /**
   * A new customer whose earlier attempt went unanswered, with supplier customers of its name that
   * may be it: waiting (state `conflict`) for the rep to say which, or that none is.
   */
  candidates: z.array(customerCandidateSchema).optional(),
  /** What the rep entered for that new customer, beside the candidates. */
  entered: customerCandidateSchema.omit({ guid: true, createdAt: true }).optional(),
  /**
   * What a write after Send asks, each in the rep's words ("Hold requested", "PO change", "Submit"),
   * for the order page and the Orders list to say what is waiting for an order.
   */
  asks: z.array(z.string()).optional(),
  /** What the service said once it was done (a submit's lines it filled, a change found already made). */
  outcome: z.string().nullable().optional(),
})
export type OutboxEntry = z.infer<typeof outboxEntrySchema>

export const outboxSummarySchema = z.object({
  queued: z.number().int(),
  sending: z.number().int(),
  retrying: z.number().int(),
  needsAttention: z.number().int(),
  sent: z.number().int(),
  /** Writes after Send the supplier changed too, waiting for the rep's "apply mine" or "drop mine". */
  conflict: z.number().int().optional(),
  /** Writes after Send the supplier refused. */
  refused: z.number().int().optional(),
  /**
   * What needs the rep (rejected orders, conflicts, refused changes), by the core's one rule
   * (orders/outbox/attention.ts) that `satchel status` prints too. Always set by the core.
   */
  attention: z.number().int().optional(),
  /** Set while the service refuses the credentials: nothing is sent until they change. */
  pausedReason: z.string().nullable(),
  /** The pause is an expired user session: signing in again (a new token) ends it. */
  signInAgain: z.boolean().optional(),
})
export type OutboxSummary = z.infer<typeof outboxSummarySchema>

const draftId = z.number().int().positive()

const draftSummarySchema = z.object({
  id: z.number().int(),
  apiGuid: z.string(),
  /** Null for a new customer's draft. */
  customerGuid: z.string().nullable(),
  customerName: z.string(),
  lineCount: z.number().int(),
  subTotal: z.number(),
  errorCount: z.number().int(),
  updatedAt: z.string(),
})
export type DraftSummary = z.infer<typeof draftSummarySchema>

/**
 * A code (scanned or typed) that could mean more than one item of the catalog, and the SKUs it could
 * mean: the UPC of several items, or a SKU in other capitals than several items' (`DPR-1`, `dpr-1`).
 */
const ambiguousCodeSchema = z.object({ code: z.string(), skus: z.array(z.string()) })
export type AmbiguousCode = z.infer<typeof ambiguousCodeSchema>

/** Why a code added no line, in the same words on the order screen and in `order queue`. */
export function ambiguousCodeText(found: AmbiguousCode): string {
  const list = found.skus.join(', ')
  // SKUs that are all the code in other capitals: it was a SKU, not a UPC.
  if (found.skus.every((sku) => sku.toLowerCase() === found.code.toLowerCase())) {
    return `${found.code} could be any of ${found.skus.length} items whose SKUs differ only in capitals (${list}). Type the SKU of the one you mean exactly, capitals and all.`
  }
  return `${found.code} is the UPC of ${found.skus.length} items (${list}). Type the SKU of the one you mean.`
}

const lineToAddSchema = z
  .object({
    catalogItemGuid: uuid.optional(),
    sku: z.string().trim().min(1).max(100).optional(),
    // Left out for a scan or a pick: one more on a line already there, else the item's minimum.
    qty: lineQtySchema.optional(),
    note: typedText(1000).optional(),
  })
  .strict()
  .refine((line) => line.catalogItemGuid !== undefined || line.sku !== undefined, 'Give a catalog item or a SKU')

/** What the renderer may change on a draft's header; lines have methods of their own. */
const draftChangesSchema = draftSchema
  .pick({
    customerGuid: true,
    newCustomer: true,
    catalogGuid: true,
    priceGroupGuid: true,
    shipTo: true,
    remainInPreliminary: true,
  })
  .extend({ poNo: typedText(100), note: typedText(4000), shippingInstructions: typedText(4000) })
  .partial()
  .strict()

/** The orders part of the IPC contract; spread into `contract` in contract.ts. */
export const ordersContract = {
  createDraft: {
    input: z
      .object({
        customerGuid: uuid.optional(),
        newCustomer: newCustomerSchema.optional(),
        /** A customer made on this laptop and not yet synced (addCustomer's key). */
        customerLocalId: uuid.optional(),
        catalogGuid: uuid.optional(),
      })
      .strict()
      .refine(
        (v) => [v.customerGuid, v.newCustomer, v.customerLocalId].filter((given) => given !== undefined).length <= 1,
        'A draft is for one customer: an existing one, a new one, or one made on this laptop',
      ),
    output: draftCheckSchema,
  },
  getDraft: { input: z.object({ id: draftId }).strict(), output: draftCheckSchema },
  /** The new-customer form being typed, or null; a draft made for a new customer clears it. */
  getNewCustomerForm: { input: z.undefined(), output: newCustomerFormSchema.nullable() },
  /** Keeps the form as typed (null forgets it: the rep cancelled). */
  keepNewCustomerForm: { input: z.object({ form: newCustomerFormSchema.nullable() }).strict(), output: z.null() },
  listDrafts: { input: z.undefined(), output: z.array(draftSummarySchema) },
  updateDraft: { input: z.object({ id: draftId, changes: draftChangesSchema }).strict(), output: draftCheckSchema },
  deleteDraft: { input: z.object({ id: draftId }).strict(), output: z.null() },
  addDraftLines: {
    input: z.object({ id: draftId, lines: z.array(lineToAddSchema).min(1).max(500) }).strict(),
    // catalogLoading: the draft's catalog is still in its first sync (given with unknown SKUs only),
    // so an unknown SKU may simply not have arrived yet.
    // lineIds: for each line given, the draft line it went into, or null. ambiguous: codes that are
    // the UPC of more than one item, with the SKUs they could mean; nothing is added for them.
    output: z.object({
      check: draftCheckSchema,
      unknown: z.array(z.string()),
      ambiguous: z.array(ambiguousCodeSchema),
      lineIds: z.array(z.string().nullable()),
      /** New lines given no quantity that start at their item's minimum order quantity, by lineId. */
      startedAtMinimum: z.array(z.string()),
      /** Codes that name a family's parent, which is never ordered: the window opens its grid. */
      families: z.array(z.object({ code: z.string(), guid: z.string(), title: z.string() })).optional(),
      /** Codes (or guids) whose item the draft's price group is not offered: no line, and the core's reason. */
      notOffered: z.array(z.object({ code: z.string(), sku: z.string(), reason: z.string() })).optional(),
      /** Codes the local copy lacked whose items the service had: read in, and added. */
      newSinceSync: z.array(z.string()).optional(),
      /**
       * With unknown codes: when the catalog last finished syncing (ISO, null never), and whether the
       * service was asked and had none of them (false: offline, or it did not answer).
       */
      notOnLaptop: z.object({ syncedAt: z.string().nullable(), serviceAsked: z.boolean() }).optional(),
      catalogLoading: catalogLoadingSchema.nullable().optional(),
    }),
  },
  updateDraftLine: {
    input: z
      .object({
        id: draftId,
        lineId: z.string().min(1),
        qty: lineQtySchema.optional(),
        note: typedText(1000).optional(),
      })
      .strict(),
    output: draftCheckSchema,
  },
  removeDraftLine: { input: z.object({ id: draftId, lineId: z.string().min(1) }).strict(), output: draftCheckSchema },
  /**
   * The draft an "Add to order" from the catalog goes into: the customer's open draft in that catalog
   * (the one changed last), else a new one, said by `created`.
   */
  openDraftFor: {
    input: z.object({ customerGuid: uuid, catalogGuid: uuid }).strict(),
    output: z.object({ check: draftCheckSchema, created: z.boolean() }),
  },
  /** Undo of the draft's last removeDraftLine: the line back in its place, quantity and note as they were. */
  restoreDraftLine: { input: z.object({ id: draftId, lineId: z.string().min(1) }).strict(), output: draftCheckSchema },
  acceptDraftPrices: { input: z.object({ id: draftId }).strict(), output: draftCheckSchema },
  sendDraft: { input: z.object({ id: draftId }).strict(), output: outboxEntrySchema },
  listOutbox: { input: z.undefined(), output: z.array(outboxEntrySchema) },
  getOutboxSummary: { input: z.undefined(), output: outboxSummarySchema },
  retryOutbox: { input: z.object({ apiGuid: uuid.optional() }).strict(), output: outboxSummarySchema },
  editOutboxEntry: { input: z.object({ apiGuid: uuid }).strict(), output: draftCheckSchema },
  discardOutboxEntry: { input: z.object({ apiGuid: uuid }).strict(), output: outboxSummarySchema },
  /** A new draft with a previous order's lines, for the same customer; names the lines no longer offered. */
  reorder: {
    input: z.object({ orderGuid: z.string().min(1).max(100) }).strict(),
    output: z.object({
      check: draftCheckSchema,
      notOffered: z.array(z.object({ sku: z.string(), name: z.string(), reason: z.string() })),
    }),
  },
  flushOutbox: {
    input: z.undefined(),
    output: z.object({
      sent: z.number().int(),
      needsAttention: z.number().int(),
      retrying: z.number().int(),
      summary: outboxSummarySchema,
    }),
  },
} as const
