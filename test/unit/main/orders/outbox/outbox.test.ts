import { orderList } from '../../../../support/order-list'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../../src/main/db/database'
import { OrderDesk } from '../../../../../src/main/orders/desk'
import { OutboxFlusher, type OrderSender } from '../../../../../src/main/orders/outbox/flusher'
import { silentLogger, type Clock } from '../../../../../src/main/ports'
import type { OrderWithItemsResult } from '../../../../../src/main/ordering-client/client'
import { ServiceError, ServiceRejectedError } from '../../../../../src/main/ordering-client/errors'
import { catalogGuid, item, MemoryLookup } from '../../../../support/orders'

class ManualClock implements Clock {
  constructor(public ms = Date.parse('2026-11-20T12:00:00Z')) {}
  now() {
    return this.ms
  }
}

type Reply = OrderWithItemsResult | Error
/** Answers each call with the next scripted reply and records what was sent. */
class ScriptedSender implements OrderSender {
  calls: { body: Record<string, unknown>; vendorGuid?: string }[] = []
  /** What the service's order list holds, for the check of an order whose answer was lost. */
  listed: Record<string, unknown>[] = []
  listOrders = orderList(
    () => this.listed,
    () => clock.now(),
  )
  constructor(private readonly replies: ((body: Record<string, unknown>) => Reply)[]) {}
  async createOrderWithItems(body: Record<string, unknown>, options: { vendorGuid?: string }) {
    this.calls.push({ body, vendorGuid: options.vendorGuid })
    const reply = (this.replies.shift() ?? accept)(body)
    if (reply instanceof Error) throw reply
    return reply
  }
}

let orderNumber = 1000
function accept(body: Record<string, unknown>): OrderWithItemsResult {
  const apiGuid = (body.order as { api_guid: string }).api_guid
  orderNumber++
  return {
    order: {
      guid: `00000000-0000-4000-8000-${String(orderNumber).padStart(12, '0')}`,
      name: `SO-${orderNumber}`,
      order_state_id: 2,
      sub_total: 16,
      grand_total: 16,
      api_guid: apiGuid,
    },
    vendor: null,
    billTo: null,
    shipTo: null,
    contact: null,
    note: null,
    raw: {},
  } as unknown as OrderWithItemsResult
}
const unreachable = () => new ServiceError('unreachable', 'The ordering service could not be reached.')
const serverError = () => new ServiceError('server', 'The ordering service failed (500).', { status: 500 })
const refusedCredentials = () =>
  new ServiceError('credentials', 'The service refused the credentials (401).', { status: 401 })

let directory: string
let db: Database
let clock: ManualClock
let desk: OrderDesk
let lookup: MemoryLookup
const product = item({ pricing: { Retail: 10, Dealer: 8 } })

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-outbox-'))
  db = openDatabase(join(directory, 'satchel.db'))
  clock = new ManualClock()
  lookup = new MemoryLookup([product])
  desk = new OrderDesk(db, lookup, clock, () => ({ remainInPreliminary: false }))
})

afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

function queueOrder(qty = 2): string {
  const draft = desk.createDraft({ customerGuid: '33333333-3333-4333-8333-333333333333', catalogGuid })
  desk.addLines(draft.id, [{ sku: product.sku, qty }])
  return desk.send(draft.id).apiGuid
}

function flusher(sender: OrderSender | null) {
  return new OutboxFlusher({
    outbox: desk.outbox,
    sender: async () => sender,
    clock,
    logger: silentLogger,
    random: () => 0.5,
  })
}

describe('sending a draft', () => {
  it('moves the draft into the outbox in one step, keeping its api_guid', () => {
    const draft = desk.createDraft({ customerGuid: '33333333-3333-4333-8333-333333333333', catalogGuid })
    desk.addLines(draft.id, [{ sku: product.sku, qty: 2 }])
    const entry = desk.send(draft.id)
    expect(entry).toMatchObject({ apiGuid: draft.apiGuid, state: 'queued', attempts: 0, subTotal: 16, lineCount: 1 })
    expect(desk.drafts.find(draft.id)).toBeNull()
  })

  it('refuses a draft with errors and leaves it where it was', () => {
    const draft = desk.createDraft({ customerGuid: '33333333-3333-4333-8333-333333333333', catalogGuid })
    expect(() => desk.send(draft.id)).toThrow(/Add at least one line/)
    expect(desk.drafts.find(draft.id)).not.toBeNull()
    expect(desk.outbox.list()).toEqual([])
  })

  it('refuses while a price changed since the rep saw it, until the rep accepts the new price', () => {
    const draft = desk.createDraft({ customerGuid: '33333333-3333-4333-8333-333333333333', catalogGuid })
    desk.addLines(draft.id, [{ sku: product.sku, qty: 1 }])
    lookup.items.set(product.guid, { ...product, pricing: { Retail: 10, Dealer: 9 } })
    expect(() => desk.send(draft.id)).toThrow(/Prices changed/)
    expect(desk.acceptCurrentPrices(draft.id).lines[0]!.priceChanged).toBe(false)
    expect(desk.send(draft.id).subTotal).toBe(9)
    lookup.items.set(product.guid, product)
  })

  it('adds to the quantity when the same SKU is scanned again, and reports unknown SKUs', () => {
    const draft = desk.createDraft({ customerGuid: '33333333-3333-4333-8333-333333333333', catalogGuid })
    desk.addLines(draft.id, [{ sku: product.sku, qty: 1 }])
    const { check, unknown } = desk.addLines(draft.id, [
      { sku: product.sku.toLowerCase(), qty: 2 },
      { sku: 'NOPE-1', qty: 1 },
    ])
    expect(check.draft.lines).toHaveLength(1)
    expect(check.draft.lines[0]!.qty).toBe(3)
    expect(unknown).toEqual(['NOPE-1'])
  })

  it('keeps the frozen request unchangeable in the database itself', () => {
    const apiGuid = queueOrder()
    expect(() => db.prepare("UPDATE outbox_payloads SET request = '{}'").run()).toThrow(/frozen/)
    expect(() => db.prepare("UPDATE outbox_payloads SET draft = '{}'").run()).toThrow(/frozen/)
    expect(() => db.prepare("UPDATE outbox SET api_guid = 'another' WHERE api_guid = ?").run(apiGuid)).toThrow(/frozen/)
    // Removing an entry (a discard) takes its payload with it.
    expect(db.prepare('SELECT count(*) FROM outbox_payloads').pluck().get()).toBe(1)
  })
})

describe('flushing', () => {
  it('sends queued orders oldest first with the same frozen request, and stores the service’s order', async () => {
    const first = queueOrder(1)
    const second = queueOrder(2)
    const sender = new ScriptedSender([])
    const report = await flusher(sender).flush()
    expect(report).toMatchObject({ sent: 2, needsAttention: 0, retrying: 0 })
    expect(sender.calls.map((c) => (c.body.order as { api_guid: string }).api_guid)).toEqual([first, second])
    expect(sender.calls[0]!.vendorGuid).toBe('33333333-3333-4333-8333-333333333333')
    expect(desk.outbox.get(first)).toMatchObject({
      state: 'sent',
      orderName: expect.stringMatching(/^SO-/),
      orderStateId: 2,
      attempts: 1,
    })
  })

  it('retries a transient failure with backoff that survives a restart, resending the identical request', async () => {
    const apiGuid = queueOrder()
    const sender = new ScriptedSender([unreachable])
    const report = await flusher(sender).flush()
    expect(report).toMatchObject({ sent: 0, retrying: 1 })
    const entry = desk.outbox.get(apiGuid)
    expect(entry.state).toBe('retrying')
    const due = Date.parse(entry.nextAttemptAt!)
    expect(due).toBeGreaterThan(clock.ms)

    // A restart: a new desk and flusher over the same database keep the schedule.
    desk = new OrderDesk(db, lookup, clock, () => ({ remainInPreliminary: false }))
    expect(await flusher(sender).flush()).toMatchObject({ sent: 0, retrying: 1 })
    expect(sender.calls).toHaveLength(1)
    clock.ms = due
    expect(await flusher(sender).flush()).toMatchObject({ sent: 1, retrying: 0 })
    expect(sender.calls[1]!.body).toEqual(sender.calls[0]!.body)
  })

  it('keeps retrying while the failure stays transient, with waits that grow to a cap', async () => {
    const apiGuid = queueOrder()
    const waits: number[] = []
    for (let attempt = 0; attempt < 12; attempt++) {
      await flusher(new ScriptedSender([serverError])).flush()
      const entry = desk.outbox.get(apiGuid)
      expect(entry.state).toBe('retrying')
      waits.push(Date.parse(entry.nextAttemptAt!) - clock.ms)
      clock.ms = Date.parse(entry.nextAttemptAt!)
    }
    expect(waits[1]!).toBeGreaterThan(waits[0]!)
    expect(Math.max(...waits)).toBeLessThanOrEqual(5 * 60_000)
    expect(waits.at(-1)).toBe(waits.at(-2))
    expect(desk.outbox.get(apiGuid).attempts).toBe(12)
  })

  it('when the service is unreachable, every waiting order is marked retrying and none is tried twice in one flush', async () => {
    queueOrder()
    queueOrder()
    const sender = new ScriptedSender([unreachable])
    const report = await flusher(sender).flush()
    expect(sender.calls).toHaveLength(1)
    expect(report.retrying).toBe(2)
    expect(desk.outbox.summary()).toMatchObject({ queued: 0, retrying: 2 })
  })

  it('a rejected order goes to needsAttention after one attempt, with messages on its lines, and the others still go', async () => {
    const rejected = queueOrder()
    const next = queueOrder()
    const sender = new ScriptedSender([
      () =>
        new ServiceRejectedError(
          'Order could not be reconciled',
          [
            {
              type: 'ITEM_INACTIVE',
              message: 'Item is inactive',
              line: null,
              catalogItemGuid: product.guid,
              sku: null,
              raw: {},
            },
          ],
          { status: 400 },
        ),
    ])
    const report = await flusher(sender).flush()
    expect(report).toMatchObject({ sent: 1, needsAttention: 1 })
    expect(desk.outbox.get(rejected)).toMatchObject({
      state: 'needsAttention',
      attempts: 1,
      errors: [{ lineIndex: 0, catalogItemGuid: product.guid, sku: product.sku, message: 'Item is inactive' }],
    })
    expect(desk.outbox.get(next).state).toBe('sent')
    await flusher(sender).flush()
    expect(sender.calls).toHaveLength(2)
  })

  it('a rejected order can be edited back into a draft with the same api_guid, or discarded', async () => {
    const rejected = queueOrder()
    await flusher(new ScriptedSender([() => new ServiceRejectedError('no', [], { status: 400 })])).flush()
    const draft = desk.outbox.reopenAsDraft(rejected)
    expect(draft.apiGuid).toBe(rejected)
    expect(desk.outbox.find(rejected)).toBeNull()
    expect(desk.send(draft.id).apiGuid).toBe(rejected)
    await flusher(new ScriptedSender([])).flush()
    expect(desk.outbox.get(rejected)).toMatchObject({ state: 'sent', attempts: 1 })

    const other = queueOrder()
    await flusher(new ScriptedSender([() => new ServiceRejectedError('no', [], { status: 400 })])).flush()
    desk.outbox.discard(other)
    expect(desk.outbox.find(other)).toBeNull()
  })

  it('a rejected order is sent again as it stands only when the rep says so', async () => {
    const apiGuid = queueOrder()
    await flusher(new ScriptedSender([() => new ServiceRejectedError('no', [], { status: 400 })])).flush()
    const sender = new ScriptedSender([])
    await flusher(sender).flush()
    expect(sender.calls).toHaveLength(0)
    desk.outbox.retryNow(apiGuid)
    expect(desk.outbox.get(apiGuid)).toMatchObject({ state: 'queued', errors: [], lastError: null })
    await flusher(sender).flush()
    expect(desk.outbox.get(apiGuid)).toMatchObject({ state: 'sent', attempts: 2 })
    expect((sender.calls[0]!.body.order as { api_guid: string }).api_guid).toBe(apiGuid)
    expect(() => desk.outbox.retryNow(apiGuid)).toThrow(/already sent/)
  })

  it('will not discard or edit an order that may already be with the supplier', async () => {
    const apiGuid = queueOrder()
    await flusher(new ScriptedSender([unreachable])).flush()
    expect(() => desk.outbox.discard(apiGuid)).toThrow(/may already be with the supplier/)
    expect(() => desk.outbox.reopenAsDraft(apiGuid)).toThrow(/may already be with the supplier/)
  })

  it('refused credentials pause the whole queue until the connection changes', async () => {
    const first = queueOrder()
    queueOrder()
    const sender = new ScriptedSender([refusedCredentials])
    await flusher(sender).flush()
    expect(desk.outbox.summary()).toMatchObject({ queued: 2, pausedReason: expect.stringContaining('refused') })
    expect(desk.outbox.get(first).attempts).toBe(0)
    await flusher(sender).flush()
    expect(sender.calls).toHaveLength(1)
    desk.outbox.resume()
    expect(await flusher(sender).flush()).toMatchObject({ sent: 2 })
  })

  it('an expired user session pauses the queue with "Sign in again" and keeps every entry', async () => {
    const first = queueOrder()
    queueOrder()
    const sender = Object.assign(new ScriptedSender([refusedCredentials]), { authKind: 'session' as const })
    await flusher(sender).flush()
    expect(desk.outbox.summary()).toMatchObject({
      queued: 2,
      signInAgain: true,
      pausedReason: expect.stringMatching(/^Sign in again/),
    })
    expect(desk.outbox.get(first).attempts).toBe(0)
    desk.outbox.resume()
    expect(desk.outbox.summary().signInAgain).toBeUndefined()
    expect(await flusher(sender).flush()).toMatchObject({ sent: 2 })
  })

  it('an entry found in sending at start-up is sent again with the same api_guid', async () => {
    const apiGuid = queueOrder()
    expect(desk.outbox.claimNext(clock.now())?.apiGuid).toBe(apiGuid)
    expect(desk.outbox.get(apiGuid).state).toBe('sending')
    expect(desk.outbox.recoverInterrupted()).toBe(1)
    const sender = new ScriptedSender([])
    await flusher(sender).flush()
    expect((sender.calls[0]!.body.order as { api_guid: string }).api_guid).toBe(apiGuid)
    expect(desk.outbox.get(apiGuid)).toMatchObject({ state: 'sent', attempts: 2 })
  })

  it('runs one flush at a time: a second call joins the running one and an order queued meanwhile still goes', async () => {
    queueOrder()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let late: string | undefined
    const sender: OrderSender = {
      listOrders: orderList(),
      createOrderWithItems: async (body) => {
        if (!late) {
          late = queueOrder()
          await gate
        }
        return accept(body)
      },
    }
    const f = flusher(sender)
    const one = f.flush()
    const two = f.flush()
    expect(f.isSending()).toBe(true)
    release()
    const [a, b] = await Promise.all([one, two])
    expect(a).toBe(b)
    expect(desk.outbox.get(late!).state).toBe('sent')
    expect(a.sent).toBe(2)
  })

  it('flags a difference between the service’s totals and the rep’s', async () => {
    const apiGuid = queueOrder()
    await flusher(
      new ScriptedSender([
        (body) => {
          const reply = accept(body)
          ;(reply.order as Record<string, unknown>).sub_total = 18.5
          return reply
        },
      ]),
    ).flush()
    expect(desk.outbox.get(apiGuid).totalsDiffer).toEqual({ repSubTotal: 16, serverSubTotal: 18.5 })
  })

  it('does nothing without a configured connection', async () => {
    queueOrder()
    expect(await flusher(null).flush()).toMatchObject({ sent: 0, retrying: 0, summary: { queued: 1 } })
  })
})
