/**
 * Where an order is after Send, as this laptop last fetched it from the service (GET
 * /v1/orders/{guid}): per line what shipped, what is backordered and what is pending, the state
 * history, related orders (backorders, the parent order), and whether it changed since the rep last
 * opened it. Read offline; sync fetches it.
 */
import { z } from 'zod'

const guid = z.string().min(1).max(100)
const state = z.object({ id: z.number().nullable(), name: z.string() })

const trackedLineSchema = z.object({
  itemNo: z.number().nullable(),
  sku: z.string().nullable(),
  name: z.string().nullable(),
  /** net_price as the service gave it. */
  unitPrice: z.number().nullable(),
  qtyOrdered: z.number().nullable(),
  qtyShipped: z.number(),
  qtyBackordered: z.number(),
  qtyPending: z.number(),
  lineTotal: z.number().nullable(),
  /** For an order sent from this laptop: how the line differs from what was sent ("Differs from what was sent: sent as 4."), or null. */
  notAsSent: z.string().nullable(),
})
export type TrackedLine = z.infer<typeof trackedLineSchema>

const timelineEntrySchema = z.object({
  at: z.string(),
  /** 'service': a step of Order_State_Logs; 'seen': when this laptop first saw the order in a new status. */
  source: z.enum(['service', 'seen']),
  state: z.string(),
  /** Who moved it (the service's user name), for service steps. */
  who: z.string().nullable(),
  /** For 'seen' entries: what the rep would be told ("Shipped 2 of 3 lines"). */
  summary: z.string().nullable(),
})

const relatedOrderSchema = z.object({
  guid: z.string(),
  name: z.string().nullable(),
  relation: z.enum(['backorder', 'parent']),
  state: z.string(),
  /** Whether this laptop holds it (it opens offline); otherwise it loads at the next sync. */
  held: z.boolean(),
})

const orderTrackingSchema = z.object({
  guid: z.string(),
  name: z.string().nullable(),
  fetchedAt: z.string(),
  state,
  onHold: z.boolean(),
  cancelled: z.boolean(),
  shipped: z.boolean(),
  partiallyShipped: z.boolean(),
  shipDate: z.string().nullable(),
  deliveryDate: z.string().nullable(),
  totals: z.object({
    subTotal: z.number().nullable(),
    tax: z.number().nullable(),
    shipping: z.number().nullable(),
    discount: z.number().nullable(),
    grandTotal: z.number().nullable(),
  }),
  lines: z.array(trackedLineSchema),
  /** Lines this laptop sent that the supplier's copy does not hold. */
  sentMissing: z.array(z.object({ sku: z.string(), qty: z.number() })),
  timeline: z.array(timelineEntrySchema),
  related: z.array(relatedOrderSchema),
  /** "Shipped 2 of 3 lines", "On hold", "Cancelled", or the state's name. */
  summary: z.string(),
  /** Its status changed since the rep last opened it. */
  changed: z.boolean(),
  openedAt: z.string().nullable(),
  /** The supplier's latest copy could not be read (impossible figures, too large): what is shown is the last good one. */
  latestUnreadable: z.object({ at: z.string(), reason: z.string() }).nullable(),
})
export type OrderTracking = z.infer<typeof orderTrackingSchema>

const orderChangeSchema = z.object({
  guid: z.string(),
  name: z.string().nullable(),
  customerGuid: z.string().nullable(),
  customerName: z.string().nullable(),
  state,
  summary: z.string(),
  createdAt: z.string().nullable(),
  changed: z.boolean(),
})
export type OrderChange = z.infer<typeof orderChangeSchema>

export const orderTrackingContract = {
  /** The full order as last fetched; null when sync has not fetched it yet. */
  getOrderTracking: { input: z.object({ guid }).strict(), output: orderTrackingSchema.nullable() },
  /** The rep opened the order: its "changed" mark clears. Answers how many orders remain marked. */
  markOrderOpened: { input: z.object({ guid }).strict(), output: z.object({ changedCount: z.number() }) },
  /** Orders whose status changed since the rep last opened them, newest first. */
  listChangedOrders: {
    input: z.object({ customerGuid: guid.optional() }).strict().optional(),
    output: z.array(orderChangeSchema),
  },
  /** A customer's open orders (neither shipped nor cancelled), newest first, with their state. */
  listOpenOrders: { input: z.object({ customerGuid: guid }).strict(), output: z.array(orderChangeSchema) },
} as const
