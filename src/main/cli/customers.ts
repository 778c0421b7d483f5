/**
 * `customers add` and `customers change`: a customer made or changed on this laptop, queued in the
 * outbox and sent by `flush`. A customer made offline is usable at once: `order queue` takes its key
 * as `customerLocalId`, and its orders wait for it.
 */
import { z } from 'zod'
import { CoreError, describeIssues } from '../errors'
import { customerEditsFor } from '../orders/customer-writes'
import { refuseDamaged } from './health'
import { readUserFile } from './input-files'
import { CliFailure, UsageError, type GlobalOptions, type Output } from './errors'
import { withOrders } from './orders'

const address = z
  .object({
    name: z.string().max(200).optional(),
    company_name: z.string().max(200).optional(),
    address_line_one: z.string().max(200),
    address_line_two: z.string().max(200).optional(),
    city: z.string().max(100),
    state: z.string().max(100).optional(),
    postal_code: z.string().max(20).optional(),
    country: z.string().max(100).optional(),
    phone: z.string().max(50).optional(),
    email: z.string().max(200).optional(),
  })
  .strict()

/** An addresses file is two addresses: a megabyte is far more than any needs. */
const addressFileBytes = 1024 * 1024

/** `--file`: the addresses, as the service's AddressInput names their fields. */
const addressFile = z.object({ billTo: address.optional(), shipTo: address.optional() }).strict()

function readAddresses(file: string | undefined): z.infer<typeof addressFile> {
  if (file === undefined) return {}
  const text = readUserFile(file, addressFileBytes)
  let json: unknown
  try {
    json = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text)
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  const parsed = addressFile.safeParse(json)
  if (!parsed.success)
    throw new UsageError(
      describeIssues(parsed.error)
        .map((issue) => `${issue.path}: ${issue.message}`)
        .join('; '),
    )
  return parsed.data
}

function fail(error: unknown): never {
  if (error instanceof CoreError) {
    if (error.code === 'INVALID_ARGUMENT' || error.code === 'NOT_FOUND') throw new UsageError(error.message)
    throw new CliFailure(error.message, error.code)
  }
  throw error
}

export async function runCustomersAdd(
  global: GlobalOptions,
  options: { name?: string; email?: string; phone?: string; file?: string },
  output: Output,
): Promise<number> {
  if (!options.name?.trim()) throw new UsageError('customers add needs --name')
  if (options.email !== undefined && !z.email().safeParse(options.email).success)
    throw new UsageError(`--email is not an email address (got '${options.email}')`)
  const addresses = readAddresses(options.file)
  return withOrders(global, ({ desk }, db, local) => {
    refuseDamaged(db, global.db)
    const entry = customerEditsFor(local.customers, desk.outbox).add({
      name: options.name!,
      ...(options.email ? { email: options.email } : {}),
      ...(options.phone ? { phone: options.phone } : {}),
      ...addresses,
    })
    output.result(
      { customerLocalId: entry.apiGuid, apiGuid: entry.apiGuid, state: 'queued' },
      `Queued the new customer ${entry.customerName} (${entry.apiGuid}); \`satchel flush\` sends it. Orders for it take "customerLocalId": "${entry.apiGuid}".`,
    )
    return 0
  })
}

export async function runCustomersChange(
  global: GlobalOptions,
  options: { customer: string; name?: string; email?: string; phone?: string; file?: string },
  output: Output,
): Promise<number> {
  const addresses = readAddresses(options.file)
  if (options.email !== undefined && !z.email().safeParse(options.email).success)
    throw new UsageError(`--email is not an email address (got '${options.email}')`)
  return withOrders(global, ({ desk }, db, local) => {
    refuseDamaged(db, global.db)
    const edits = customerEditsFor(local.customers, desk.outbox)
    try {
      const entry = edits.change(options.customer, {
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.email !== undefined ? { email: options.email } : {}),
        ...(options.phone !== undefined ? { phone: options.phone } : {}),
        ...addresses,
      })
      output.result(
        { apiGuid: entry.apiGuid, state: 'queued' },
        `Queued: ${entry.title ?? 'the change'} (${entry.apiGuid}); \`satchel flush\` sends it.`,
      )
      return 0
    } catch (error) {
      return fail(error)
    }
  })
}
