/**
 * A customer's brief as it crosses the IPC boundary: what the rep reads before the visit. It is built
 * on this laptop from the local copy only (the customer's order history, their catalog and the
 * orders' full copies); the one online step is reading the history first, which `refresh` asks for.
 */
import { z } from 'zod'

const guid = z.string().min(1).max(100)
/** YYYY-MM-DD, a calendar day in the laptop's time zone. */
const dayText = z.string()

const briefMonthSchema = z.object({
  /** YYYY-MM in the laptop's time zone. */
  month: z.string().regex(/^\d{4}-\d{2}$/),
  /** Orders created that month, neither cancelled nor quotes. */
  orders: z.number().int(),
  /** Their lines' total before tax and shipping. */
  value: z.number(),
  /** Cancelled orders that month, counted apart: they are not sales. */
  cancelled: z.number().int(),
})
export type BriefMonth = z.infer<typeof briefMonthSchema>

const briefTopItemSchema = z.object({
  sku: z.string(),
  name: z.string(),
  qty: z.number(),
  value: z.number(),
  lastOrdered: dayText,
  /** The catalog item to add, where the customer's catalog on this laptop has it; null otherwise. */
  itemGuid: z.string().nullable(),
  /** Why Add to order is not offered ("not offered any more"); null when it can be added. */
  note: z.string().nullable(),
})
export type BriefTopItem = z.infer<typeof briefTopItemSchema>

const briefLapsedItemSchema = z.object({
  sku: z.string(),
  name: z.string(),
  /** How many different months it was ordered in (2 or more). */
  monthsOrdered: z.number().int(),
  lastOrdered: dayText,
  itemGuid: z.string().nullable(),
  note: z.string().nullable(),
})
export type BriefLapsedItem = z.infer<typeof briefLapsedItemSchema>

const briefBackorderedSchema = z.object({
  orderGuid: z.string(),
  orderName: z.string(),
  sku: z.string(),
  name: z.string(),
  qtyBackordered: z.number(),
})

export const customerBriefSchema = z.object({
  customer: z.object({ guid: z.string(), name: z.string() }),
  history: z.object({
    /** The first day the held history covers (YYYY-MM-DD), or null when none is held. */
    from: dayText.nullable(),
    /** True only when the full 24 months were read: never show a short history as complete. */
    complete: z.boolean(),
    /** When the history was last read from the service; null when never. */
    fetchedAt: z.string().nullable(),
    /** For the rep when incomplete: "Orders since 3 March only; connect to read the rest"; null when complete. */
    note: z.string().nullable(),
  }),
  /** The last 24 months, oldest first, a month with no orders as zero: months[i + 12] is months[i] a year on. */
  months: z.array(briefMonthSchema),
  /** The last 12 months by value. */
  topItems: z.array(briefTopItemSchema),
  /** Ordered in 2 or more different months, not in the last 90 days; the longest-lapsed last. */
  lapsed: z.array(briefLapsedItemSchema),
  /** Open backordered lines of the customer's orders. */
  backordered: z.array(briefBackorderedSchema),
  /** Items in the customer's catalog newer than their last order. */
  newItems: z.number().int(),
  /** The catalog those new items are in, and the day of the last order they are newer than. */
  newItemsCatalogGuid: z.string().nullable(),
  lastOrderedAt: z.string().nullable(),
  /** The open balance against the limit, where the customer record has them; null otherwise. */
  credit: z.object({ balance: z.number().nullable(), limit: z.number().nullable() }).nullable(),
  /** The customer's currency code, where known, for the values above. */
  currency: z.string().nullable(),
})
export type CustomerBrief = z.infer<typeof customerBriefSchema>

/** The brief part of the IPC contract; spread into `contract` in contract.ts. */
export const briefContract = {
  /** Built from the local copy only; answers offline. */
  getCustomerBrief: { input: z.object({ customerGuid: guid }).strict(), output: customerBriefSchema },
  /**
   * Reads the customer's history from the service (newer than what is held, or all 24 months when
   * none is), then answers the brief. Online only: offline it fails with UNAVAILABLE; a read cut
   * short after some pages answers the brief, which says how far back it holds.
   */
  refreshCustomerHistory: { input: z.object({ customerGuid: guid }).strict(), output: customerBriefSchema },
} as const
