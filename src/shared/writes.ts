/**
 * Writes after Send as they cross the IPC boundary: the kinds of outbox entry beside orders (a
 * submit of an order in review, a change to a sent order), what a change may touch, and a conflict's
 * two values. The rules that send them live in the core (src/main/tracking/order-writes.ts).
 */
import { z } from 'zod'
import { outboxEntrySchema, outboxSummarySchema, shipToSchema } from './orders'
import { typedText } from './typed-text'

/** How a submit treats what is short, in the rep's words and at the wire (`allowPartialFulfillment`). */
const fulfilments = ['partial', 'whole', 'available'] as const
export type Fulfilment = (typeof fulfilments)[number]

export const fulfilmentWords: Record<Fulfilment, string> = {
  partial: 'Ship what is there and backorder the rest',
  whole: 'Hold it all until everything is there',
  available: 'Take what is there',
}

/** `allowPartialFulfillment` for each choice: true, false, or left out. */
export function allowPartialFulfillment(fulfilment: Fulfilment): boolean | undefined {
  return fulfilment === 'partial' ? true : fulfilment === 'whole' ? false : undefined
}

const isoDate = z.iso.date({ error: 'Give the date as YYYY-MM-DD' })

/** What a rep may change of a sent order; each field left out stays as it is. */
export const orderChangesSchema = z
  .object({
    /** true: put on hold; false: release. */
    onHold: z.boolean().optional(),
    /** Ask the supplier to cancel the order. */
    cancel: z.literal(true).optional(),
    poNo: typedText(100).optional(),
    note: typedText(4000).optional(),
    /** Do not ship before this date (null clears it). */
    shipAfter: isoDate.nullable().optional(),
    /** Cancel what has not shipped by this date (null clears it). */
    cancelAfter: isoDate.nullable().optional(),
    shipTo: shipToSchema.optional(),
  })
  .strict()
  .refine((changes) => Object.keys(changes).length > 0, 'Change at least one thing')
export type OrderChanges = z.infer<typeof orderChangesSchema>

/** The words the screens and the CLI say when only an API key is set: these writes need a user session. */
export const signInAsUser =
  'Submits and changes to sent orders need you signed in as a user: the supplier takes them from a user session only. Sign in as a user in Settings, Connection.'

const orderRef = z.string().trim().min(1).max(100)
const entryKey = z.uuid()

/** The writes-after-Send part of the IPC contract; spread into `contract` in contract.ts. */
export const writesContract = {
  /** Queues the submit of an order in review (its number, guid, or the api_guid it was sent with). */
  submitSentOrder: {
    input: z.object({ order: orderRef, fulfilment: z.enum(fulfilments) }).strict(),
    output: outboxEntrySchema,
  },
  /**
   * Queues a change to a sent order: only the fields given, each against the value last synced with
   * the changes still waiting applied; what is already waiting is not queued again (the answer is
   * the entry that waits with it).
   */
  changeSentOrder: {
    input: z.object({ order: orderRef, changes: orderChangesSchema }).strict(),
    output: outboxEntrySchema,
  },
  /**
   * The header fields a change may touch, by the service's names (is_on_hold, po_no, Ship_To, …), as
   * last synced with the changes still waiting in the outbox applied: what a change starts from.
   */
  getSentOrderHeader: {
    input: z.object({ order: orderRef }).strict(),
    output: z.object({ record: z.record(z.string(), z.unknown()) }),
  },
  /** A conflict: send the rep's change over the supplier's value. */
  applyMyChange: { input: z.object({ apiGuid: entryKey }).strict(), output: outboxSummarySchema },
  /** A conflict or a refusal: drop the rep's change; the supplier's value stands. */
  dropMyChange: { input: z.object({ apiGuid: entryKey }).strict(), output: outboxSummarySchema },
  /**
   * A new customer waiting for the rep among candidates: `customerGuid` is the supplier's customer
   * that is this one (nothing is made; its orders go to that customer), or null for none of them
   * (it is made, once its earlier attempt can no longer be in flight).
   */
  chooseCustomerMatch: {
    input: z.object({ apiGuid: entryKey, customerGuid: z.uuid().nullable() }).strict(),
    output: outboxSummarySchema,
  },
}
