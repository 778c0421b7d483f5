/**
 * Customers the rep makes or changes, through the one outbox: a new customer without an order
 * (`POST /vendors`) and a change to a customer (`PUT /v1/vendors/{guid}`). A customer made offline is
 * usable at once: its key stands for it (`customerLocalId`), and the orders queued for it wait for
 * it and then go for the guid the service gave it.
 *
 * `POST /vendors` is idempotent only on the new customer's email. After an attempt whose answer was
 * lost, a customer without an email is looked for by name (`GET /vendors?name=`) among those created
 * since that attempt left and not already another entry's, and adopted only when every detail the
 * rep entered matches; while none is found and the first request may still be at the service, it
 * waits ("checking with the supplier") rather than make a second. One with an email is simply sent again.
 * A change sends name and email as they are now plus the fields changed, and only while each changed
 * field still holds the value last synced; otherwise it is a conflict, as a change to an order is.
 */
import { randomUUID } from 'node:crypto'
import {
  newCustomerSchema,
  type AddressInput,
  type CustomerCandidate,
  type NewCustomer,
  type OutboxEntry,
} from '../../shared/orders'
import type { Customers } from '../local/customers'
import { ServiceError } from '../ordering-client/errors'
import type { CustomerRecord } from '../ordering-client/schemas'
import { CoreError } from '../errors'
import type { Outbox } from './outbox/outbox'
import {
  needs,
  serviceSkewMs,
  writeInFlightMs,
  type WriteOutcome,
  type WriteRule,
  type WriteRules,
  type WriteSender,
  type WriteWork,
} from './outbox/write-kinds'

interface NewCustomerInput {
  name: string
  email?: string
  phone?: string
  billTo?: AddressInput
  shipTo?: AddressInput
}

interface CustomerChanges {
  name?: string
  email?: string
  phone?: string
  billTo?: Partial<AddressInput>
  shipTo?: Partial<AddressInput>
  requirePo?: boolean
}

interface NewCustomerRequest {
  newVendor: { name: string; email?: string; phone?: string }
  newVendorBillTo?: AddressInput
  newVendorShipTo?: AddressInput
}

interface ChangeRequest {
  customerGuid: string
  changes: Record<string, { from: unknown; to: unknown }>
}

const labels: Record<string, string> = {
  name: 'Name',
  email: 'Email',
  billTo: 'Bill-to',
  shipTo: 'Ship-to',
  requirePo: 'Requires a PO',
}

/** A customer's field as compared: trimmed text or none, an address by the keys changed, a flag. */
function valueOf(customer: Record<string, unknown>, field: string, like: unknown): unknown {
  if (field === 'requirePo') return customer.require_po === true || customer.require_po === 1
  if (field === 'billTo' || field === 'shipTo') {
    const address = (customer[field === 'billTo' ? 'Bill_To' : 'Ship_To'] ?? {}) as Record<string, unknown>
    return Object.fromEntries(Object.keys(like as object).map((key) => [key, text(address[key])]))
  }
  return text(customer[field])
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
}

function normal(field: string, value: unknown): unknown {
  if (field === 'requirePo') return value === true
  if (field === 'billTo' || field === 'shipTo')
    return Object.fromEntries(Object.entries(value as object).map(([key, item]) => [key, text(item)]))
  return text(value)
}

function same(field: string, a: unknown, b: unknown): boolean {
  return JSON.stringify(normal(field, a)) === JSON.stringify(normal(field, b))
}

/** With an API key, these endpoints are the supplier's to grant: a 403 says what to do, in the rep's words. */
function refusalWithKey(error: unknown, sender: Partial<WriteSender>): WriteOutcome | null {
  const authKind = (sender as { authKind?: string }).authKind
  if (!(error instanceof ServiceError) || error.status !== 403 || authKind !== 'apiKey') return null
  return {
    kind: 'refused',
    message:
      'The supplier does not let Satchel’s API key create or change customers: sign in as a user, or ask the supplier to grant the key access to customers. The entry is kept.',
  }
}

function done(customer: CustomerRecord, outcome: string | null): WriteOutcome {
  return { kind: 'done', outcome, result: { customerGuid: customer.guid, customerName: customer.name ?? null } }
}

/** The fields a change may touch, as a customer record names them. */
const changeableFields = ['name', 'email', 'phone', 'Bill_To', 'Ship_To', 'require_po'] as const

/**
 * A change done: with the service's record of what it may touch and its updated_at, so the next
 * change made before a sync brings it back starts from it (else changing a field twice between
 * syncs was a conflict with the rep's own first change).
 */
function doneChange(customer: CustomerRecord, outcome: string | null): WriteOutcome {
  const record = customer as Record<string, unknown>
  const answered = done(customer, outcome) as Extract<WriteOutcome, { kind: 'done' }>
  const updatedAt = typeof record.updated_at === 'string' ? record.updated_at : null
  if (!updatedAt) return answered
  return {
    ...answered,
    result: {
      ...answered.result,
      answer: {
        updatedAt,
        record: Object.fromEntries(changeableFields.filter((key) => key in record).map((key) => [key, record[key]])),
      },
    },
  }
}

/**
 * The customer as the rep's next change starts from: the synced copy, with the answer to the last
 * change sent where it is newer than the copy, and the changes still waiting applied in order.
 */
function asTheRepLeftIt(
  synced: Record<string, unknown>,
  own: ReturnType<Outbox['writes']['customerChanges']>,
): Record<string, unknown> {
  let customer = synced
  const answeredAt = Date.parse(own.lastAnswer?.updatedAt ?? '')
  const copyAt = Date.parse(typeof synced.updated_at === 'string' ? synced.updated_at : '')
  if (own.lastAnswer && Number.isFinite(answeredAt) && !(copyAt >= answeredAt))
    customer = { ...customer, ...own.lastAnswer.record }
  for (const request of own.waiting as unknown as ChangeRequest[]) {
    for (const [field, { to }] of Object.entries(request.changes)) {
      if (field === 'billTo' || field === 'shipTo') {
        const key = field === 'billTo' ? 'Bill_To' : 'Ship_To'
        customer = { ...customer, [key]: { ...((customer[key] ?? {}) as object), ...(to as object) } }
      } else customer = { ...customer, [field === 'requirePo' ? 'require_po' : field]: to }
    }
  }
  return customer
}

/** Digits only: "(503) 555-7001" and "503.555.7001" are one phone. */
function digits(value: unknown): string | null {
  const only = typeof value === 'string' ? value.replace(/\D/g, '') : ''
  return only === '' ? null : only
}

/**
 * Whether a customer the service has is the one this entry asked for: the name, and every other
 * field the rep entered (email, phone, bill-to and ship-to lines), as the service keeps them. A field
 * the rep left empty says nothing either way.
 */
function madeFrom(request: NewCustomerRequest, customer: CustomerRecord): boolean {
  const record = customer as Record<string, unknown>
  if (text(record.name)?.toLowerCase() !== request.newVendor.name.trim().toLowerCase()) return false
  const { email, phone } = request.newVendor
  if (email && text(record.email)?.toLowerCase() !== email.trim().toLowerCase()) return false
  if (phone) {
    const billTo = (record.Bill_To ?? {}) as Record<string, unknown>
    if (![record.phone, billTo.phone].some((theirs) => digits(theirs) === digits(phone))) return false
  }
  for (const [mine, theirs] of [
    [request.newVendorBillTo, record.Bill_To],
    [request.newVendorShipTo, record.Ship_To],
  ] as const) {
    if (!mine) continue
    const address = (theirs ?? {}) as Record<string, unknown>
    for (const [key, value] of Object.entries(mine)) {
      if (text(value) === null) continue
      const same =
        key === 'phone'
          ? digits(address[key]) === digits(value)
          : text(address[key])?.toLowerCase() === text(value)?.toLowerCase()
      if (!same) return false
    }
  }
  return true
}

/**
 * After an attempt whose answer was lost, the customers the service made since that could be this
 * entry's: named as the rep named it, created since the attempt left (less the clocks' difference),
 * and not already another entry's. Of those, the ones that match every field the rep entered.
 */
async function madeSince(
  work: WriteWork,
  request: NewCustomerRequest,
  sentAt: number,
  sender: Partial<WriteSender>,
  signal: AbortSignal,
): Promise<{ named: CustomerRecord[]; matching: CustomerRecord[] }> {
  const since = sentAt - serviceSkewMs
  const page = await needs(sender, 'listCustomers')({ limit: 100, offset: 0, name: request.newVendor.name }, { signal })
  const wanted = request.newVendor.name.trim().toLowerCase()
  const others = work.otherNewCustomers as unknown as NewCustomerRequest[]
  const named = page.rows
    .map((row) => row.customer)
    .filter((customer) => {
      const created = Date.parse(typeof customer.created_at === 'string' ? customer.created_at : '')
      return (
        customer.name?.trim().toLowerCase() === wanted &&
        Number.isFinite(created) &&
        created >= since &&
        !work.claimedCustomers.includes(customer.guid) &&
        !(work.detail.notThisCustomer ?? []).includes(customer.guid)
      )
    })
    // One that fits another waiting entry and not this one is that entry's, whichever goes first.
    .filter(
      (customer) =>
        madeFrom(request, customer) || !others.some((other) => other.newVendor && madeFrom(other, customer)),
    )
  return { named, matching: named.filter((customer) => madeFrom(request, customer)) }
}

/** An address on one line, as the rep reads it ("12 Harbor St, Portland OR 97201"). */
function oneLine(address: Record<string, unknown> | undefined): string | null {
  if (!address) return null
  const place = [text(address.city), [text(address.state), text(address.postal_code)].filter(Boolean).join(' ')]
    .filter((part) => part)
    .join(' ')
  const line = [text(address.address1), place].filter((part) => part).join(', ')
  return line === '' ? null : line
}

/** What the rep recognises a customer by, for the candidates the rep chooses among. */
function candidateOf(customer: CustomerRecord): CustomerCandidate {
  const record = customer as Record<string, unknown>
  const billTo = (record.Bill_To ?? {}) as Record<string, unknown>
  return {
    guid: customer.guid,
    name: text(record.name) ?? customer.guid,
    phone: text(record.phone) ?? text(billTo.phone),
    email: text(record.email),
    address: oneLine(billTo),
    createdAt: text(record.created_at),
  }
}

/**
 * The customer a new-customer entry made, as the local copy keeps it until a sync brings the
 * service's own copy: the service's answer, with what the rep entered where the answer is silent
 * (the spec's reply may be no more than a reference).
 */
function madeRecord(request: NewCustomerRequest, customer: CustomerRecord): CustomerRecord {
  const billTo = request.newVendorBillTo ?? request.newVendorShipTo
  const shipTo = request.newVendorShipTo ?? request.newVendorBillTo
  const entered: Record<string, unknown> = {
    ...request.newVendor,
    active: true,
    ...(billTo ? { city: billTo.city, state: billTo.state ?? null, Bill_To: billTo } : {}),
    ...(shipTo ? { Ship_To: shipTo } : {}),
  }
  const answered = Object.fromEntries(
    Object.entries(customer as Record<string, unknown>).filter(([, value]) => value !== undefined && value !== null),
  )
  return { ...entered, ...answered } as CustomerRecord
}

function doneNew(request: NewCustomerRequest, customer: CustomerRecord, outcome: string | null): WriteOutcome {
  return { ...done(customer, outcome), made: madeRecord(request, customer) } as WriteOutcome
}

const newCustomerRule: WriteRule = {
  async send(work, sender, signal) {
    const request = work.request as unknown as NewCustomerRequest
    try {
      if (work.detail.chosenCustomer) {
        // The rep recognised it among the candidates: adopted as the service has it now, never made again.
        const customer = await needs(sender, 'getCustomer')(work.detail.chosenCustomer, { signal })
        return doneNew(
          request,
          customer,
          `You chose ${customer.name ?? 'this customer'} as this customer; it was not made again.`,
        )
      }
      if (!request.newVendor.email && work.deliveryUnknownSince !== null) {
        // Without an email the service cannot tell a retry from a second customer: look first, and
        // while the first request may still be at the service, wait for it rather than send another.
        const sentAt = Date.parse(work.detail.sentAt ?? work.deliveryUnknownSince)
        const { named, matching } = await madeSince(work, request, sentAt, sender, signal)
        if (matching.length === 1)
          return doneNew(request, matching[0]!, 'The supplier had it from an earlier attempt; it was not made twice.')
        // More than one fits: never a guess. None fits yet: the first may still be on its way, so it
        // is waited for; once it can no longer be, a same-named customer that does not fit is the
        // rep's to recognise or not.
        if (matching.length > 1) return askTheRep(request, matching, 'more than one customer')
        if (work.now < sentAt + writeInFlightMs) return stillChecking(sentAt)
        if (named.length > 0) return askTheRep(request, named, 'a customer')
      }
      work.sending()
      const customer = await needs(sender, 'createCustomer')(work.request, { signal })
      return doneNew(request, customer, null)
    } catch (error) {
      const refused = refusalWithKey(error, sender)
      if (refused) return refused
      throw error
    }
  },
}

/**
 * The candidates, for the rep to say which (if any) is this customer; nothing that waits for it is
 * sent meanwhile.
 */
function askTheRep(request: NewCustomerRequest, candidates: CustomerRecord[], found: string): WriteOutcome {
  const listed = candidates.map((customer) => `${customer.name ?? customer.guid} (${customer.guid})`).join(', ')
  return {
    kind: 'choose',
    candidates: candidates.map(candidateOf),
    entered: {
      name: request.newVendor.name,
      phone: text(request.newVendor.phone) ?? text(request.newVendorBillTo?.phone),
      email: text(request.newVendor.email),
      address: oneLine(request.newVendorBillTo as Record<string, unknown> | undefined),
    },
    message: `The supplier has ${found} named “${request.newVendor.name}” made since this one was sent${found === 'a customer' ? ', but not with the details entered here' : ''}: ${listed}. Nothing is sent for this customer, or its orders, until you say which is this one, or that none is.`,
  }
}

/** "Checking with the supplier": what the rep reads while an unanswered new customer may still be at the service. */
function stillChecking(sentAt: number): WriteOutcome {
  const checkAt = sentAt + writeInFlightMs
  const time = new Date(checkAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
  return {
    kind: 'checking',
    checkAt,
    message: `Checking with the supplier: the new customer got no answer and may still be with them. It is not sent again before ${time}, and only if they do not have it by then.`,
  }
}

const customerChangeRule: WriteRule = {
  async send(work: WriteWork, sender, signal) {
    const request = work.request as unknown as ChangeRequest
    try {
      const now = await needs(sender, 'getCustomer')(request.customerGuid, { signal })
      const conflict = []
      const changed: Record<string, unknown> = {}
      for (const [field, { from, to }] of Object.entries(request.changes)) {
        const current = valueOf(now, field, to)
        if (same(field, current, to)) continue
        if (work.detail.applyMine || same(field, current, from)) changed[field] = to
        else
          conflict.push({
            field,
            label: labels[field] ?? field,
            was: normal(field, from),
            theirs: current,
            mine: normal(field, to),
          })
      }
      if (conflict.length > 0) return { kind: 'conflict', conflict }
      if (Object.keys(changed).length === 0) return doneChange(now, 'The supplier’s copy already says so.')
      // Name and email as they are now, with the rep's where changed: the service requires both.
      const body: Record<string, unknown> = {
        name: changed.name ?? now.name ?? '',
        email: changed.email ?? now.email ?? '',
        ...(changed.billTo ? { billTo: changed.billTo } : {}),
        ...(changed.shipTo ? { shipTo: changed.shipTo } : {}),
        ...(changed.requirePo !== undefined ? { options: { require_po: changed.requirePo } } : {}),
      }
      return doneChange(await needs(sender, 'updateCustomer')(request.customerGuid, body, { signal }), null)
    } catch (error) {
      const refused = refusalWithKey(error, sender)
      if (refused) return refused
      throw error
    }
  },
}

export const customerWriteRules: WriteRules = { newCustomer: newCustomerRule, customerChange: customerChangeRule }

/** Queues customers made or changed by the rep; `synced` reads the customer as last synced. */
export class CustomerEdits {
  constructor(
    private readonly outbox: Outbox,
    private readonly synced: (guid: string) => Record<string, unknown> | null,
  ) {}

  /** A new customer; its key (the entry's) is its local id until the service gives it a guid. */
  add(input: NewCustomerInput): OutboxEntry {
    const key = randomUUID()
    const request: NewCustomerRequest = {
      newVendor: {
        name: input.name.trim(),
        ...(input.email ? { email: input.email.trim() } : {}),
        ...(input.phone ? { phone: input.phone.trim() } : {}),
      },
      ...(input.billTo ? { newVendorBillTo: input.billTo } : {}),
      ...(input.shipTo ? { newVendorShipTo: input.shipTo } : {}),
    }
    this.outbox.writes.enqueue({
      kind: 'newCustomer',
      key,
      customerGuid: null,
      customerName: request.newVendor.name,
      request: request as unknown as Record<string, unknown>,
      title: `New customer ${request.newVendor.name}`,
      dependsOn: null,
    })
    return this.outbox.get(key)
  }

  change(customerGuid: string, changes: CustomerChanges): OutboxEntry {
    const customer = this.synced(customerGuid)
    if (!customer) throw new CoreError('NOT_FOUND', `No customer ${customerGuid} on this laptop.`)
    const wanted: Record<string, unknown> = {}
    if (changes.name !== undefined) wanted.name = changes.name
    if (changes.email !== undefined) wanted.email = changes.email
    if (changes.billTo || changes.phone !== undefined)
      wanted.billTo = { ...changes.billTo, ...(changes.phone !== undefined ? { phone: changes.phone } : {}) }
    if (changes.shipTo) wanted.shipTo = changes.shipTo
    if (changes.requirePo !== undefined) wanted.requirePo = changes.requirePo
    const request: ChangeRequest = { customerGuid, changes: {} }
    for (const [field, to] of Object.entries(wanted)) {
      const from = valueOf(customer, field, to)
      if (!same(field, from, to)) request.changes[field] = { from, to }
    }
    if (Object.keys(request.changes).length === 0)
      throw new CoreError('INVALID_ARGUMENT', 'The customer already says so; there is nothing to change.')
    const name = text(customer.name) ?? 'the customer'
    const key = randomUUID()
    this.outbox.writes.enqueue({
      kind: 'customerChange',
      key,
      customerGuid,
      customerName: name,
      request: request as unknown as Record<string, unknown>,
      title: `Change ${Object.keys(request.changes)
        .map((field) => (labels[field] ?? field).toLowerCase())
        .join(', ')} of ${name}`,
      dependsOn: null,
    })
    return this.outbox.get(key)
  }
}

/**
 * The customer edits of this database, each change made against the customer as last synced with
 * the rep's own changes since applied (sent but not synced back, or still waiting).
 */
export function customerEditsFor(customers: Customers, outbox: Outbox): CustomerEdits {
  return new CustomerEdits(outbox, (guid) => {
    const row = customers.byGuid(guid)
    return row
      ? asTheRepLeftIt(JSON.parse(row.json) as Record<string, unknown>, outbox.writes.customerChanges(guid))
      : null
  })
}

/**
 * Whom a draft for a customer made on this laptop is for: once the service made it and the local
 * copy holds it (`onLaptop`), the service's customer by its guid, as any other; until then the new
 * customer its drafts stand for. A refused one takes no orders.
 */
export function madeOnThisLaptop(
  outbox: Outbox,
  key: string,
  onLaptop: (guid: string) => boolean,
): { customerGuid: string } | { newCustomer: NewCustomer } {
  const made = outbox.writes.newCustomer(key)
  if (!made) throw new CoreError('NOT_FOUND', 'No customer made on this laptop has that id.')
  if (made.state === 'refused')
    throw new CoreError('CONFLICT', 'The supplier refused this customer; fix it in the outbox before ordering for it.')
  const guid = made.state === 'sent' ? outbox.writes.customerOf(made.id) : null
  if (guid && onLaptop(guid)) return { customerGuid: guid }
  return { newCustomer: newCustomerOfRequest(made.request) }
}

/** The new customer a queued new-customer entry will make, as a draft's new customer stands for it. */
export function newCustomerOfRequest(request: Record<string, unknown>): NewCustomer {
  const vendor = (request.newVendor ?? {}) as { name?: string; email?: string; phone?: string }
  return newCustomerSchema.parse({
    name: vendor.name ?? '',
    ...(vendor.email ? { email: vendor.email } : {}),
    ...(vendor.phone ? { phone: vendor.phone } : {}),
    ...(request.newVendorBillTo ? { billTo: request.newVendorBillTo } : {}),
    ...(request.newVendorShipTo ? { shipTo: request.newVendorShipTo } : {}),
  })
}
