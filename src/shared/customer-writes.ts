/**
 * Customers the rep makes or changes, as they cross the IPC boundary: a new customer without an
 * order, and a change to a synced one. Both go through the one outbox (src/main/orders/customer-writes.ts),
 * so a customer made offline is listed and ordered for at once and reaches the supplier when it answers.
 */
import { z } from 'zod'
import { addressInputSchema, newCustomerSchema, outboxEntrySchema } from './orders'
import { typedText } from './typed-text'

/** A customer made on this laptop: the new-customer form's own checks, without the order's parts. */
const addCustomerSchema = newCustomerSchema.pick({ name: true, email: true, phone: true, billTo: true, shipTo: true })

/** What the rep may change of a customer; each field left out stays as it is. */
const customerChangesSchema = z
  .object({
    name: typedText(200).trim().min(1, 'Enter the customer’s name').optional(),
    email: z.email('Enter a valid email address').optional(),
    phone: typedText(50).optional(),
    billTo: addressInputSchema.partial().optional(),
    shipTo: addressInputSchema.partial().optional(),
    requirePo: z.boolean().optional(),
  })
  .strict()
  .refine((changes) => Object.keys(changes).length > 0, 'Change at least one thing')

/** The customer-writes part of the IPC contract; spread into `contract` in contract.ts. */
export const customerWritesContract = {
  /** Queues a new customer; the entry's key is its local id (createDraft's customerLocalId) until it is sent. */
  addCustomer: { input: addCustomerSchema.strict(), output: outboxEntrySchema },
  /** Queues a change to a synced customer: only the fields that differ, each against the value last synced. */
  changeCustomer: {
    input: z.object({ guid: z.uuid(), changes: customerChangesSchema }).strict(),
    output: outboxEntrySchema,
  },
}
