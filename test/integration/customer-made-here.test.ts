/**
 * A customer made on this laptop is a customer at once (issue 54): listed and searchable, with a page
 * of its own, while its outbox entry waits, even offline; once sent, its page is the service's
 * customer (the guid the answer gave) without waiting for a sync, the drafts made for it follow it to
 * that guid, and the sync's copy later is the same customer, never a second one. One the supplier
 * refused stays listed with its problem and is never shown as a real customer. A new customer's
 * first order starts on the catalog the service gives new customers.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

async function signInAsUser(h: OrdersHarness): Promise<void> {
  const { userGuid, userToken, supplierGuid } = h.service.credentials
  await h.api('saveConnection', {
    baseUrl: h.service.url,
    auth: { kind: 'session', userGuid, userToken, supplierGuid },
  })
}

const search = (h: OrdersHarness, query: string) =>
  h.api('searchCustomers', { query, withMadeHere: true, limit: 50, offset: 0 })

describe('a customer made on this laptop', () => {
  it('is listed, searchable and has its page while it waits offline; once sent, it is the service’s customer', async () => {
    const h = (harness = await startOrdersHarness())
    await h.stopService()
    const made = await h.api('addCustomer', {
      name: 'Walk Test Grocer',
      email: 'walk@walktest.example',
      phone: '503 555 0142',
      billTo: { address_line_one: '12 Harbor St', city: 'Portland', state: 'OR', postal_code: '97201' },
    })

    const waiting = await search(h, 'Walk Test')
    expect(waiting.total).toBe(1)
    expect(waiting.customers[0]).toMatchObject({
      guid: made.apiGuid,
      name: 'Walk Test Grocer',
      email: 'walk@walktest.example',
      city: 'Portland',
      madeHere: { key: made.apiGuid, state: 'waiting', problem: null },
    })
    // By city, by phone digits, and in the whole list with the synced customers after it.
    expect((await search(h, 'portl')).customers.map((each) => each.guid)).toContain(made.apiGuid)
    expect((await search(h, '5550142')).customers.map((each) => each.guid)).toEqual([made.apiGuid])
    const everyone = await search(h, '')
    const synced = await h.api('searchCustomers', { query: '', limit: 50, offset: 0 })
    expect(everyone.total).toBe(synced.total + 1)
    expect(everyone.customers[0]!.guid).toBe(made.apiGuid)
    expect(everyone.customers.slice(1, 50)).toEqual(synced.customers.slice(0, 49))
    const secondPage = await h.api('searchCustomers', { query: '', withMadeHere: true, limit: 50, offset: 50 })
    expect(secondPage.customers[0]).toEqual(synced.customers[49])
    // Pickers that draft for a synced customer by guid do not get it.
    expect(synced.customers.some((each) => each.guid === made.apiGuid)).toBe(false)

    const page = await h.api('getCustomer', { guid: made.apiGuid })
    expect(page).toMatchObject({
      guid: made.apiGuid,
      name: 'Walk Test Grocer',
      phone: '503 555 0142',
      madeHere: { key: made.apiGuid, state: 'waiting' },
    })
    expect(page.addresses.find((address) => address.kind === 'billTo')).toMatchObject({
      addressLineOne: '12 Harbor St',
      city: 'Portland',
    })

    const draft = await h.api('createDraft', { customerLocalId: made.apiGuid })
    expect(draft.draft.customerLocalId).toBe(made.apiGuid)

    await h.restartService()
    await signInAsUser(h)
    await h.api('retryOutbox', {})
    await h.api('flushOutbox')
    await h.api('flushOutbox')
    const created = h.service.control.customers().filter((customer) => customer.name === 'Walk Test Grocer')
    expect(created).toHaveLength(1)
    const guid = String(created[0]!.guid)

    // No sync: the answer's customer is on the laptop under its guid, listed once, its draft follows it.
    const sent = await search(h, 'Walk Test')
    expect(sent.total).toBe(1)
    expect(sent.customers[0]).toMatchObject({ guid, name: 'Walk Test Grocer' })
    expect(sent.customers[0]!.madeHere ?? null).toBeNull()
    const real = await h.api('getCustomer', { guid })
    expect(real).toMatchObject({ guid, name: 'Walk Test Grocer', status: 'live' })
    expect(real.madeHere ?? null).toBeNull()
    expect((await h.api('getCustomer', { guid: made.apiGuid })).guid).toBe(guid)
    const followed = await h.api('getDraft', { id: draft.draft.id })
    expect(followed.draft).toMatchObject({ customerGuid: guid, customerLocalId: null, newCustomer: null })
    const again = await h.api('createDraft', { customerLocalId: made.apiGuid })
    expect(again.draft).toMatchObject({ customerGuid: guid, customerLocalId: null })

    // The sync brings the service's copy: the same customer, not a second one.
    await h.api('syncNow', {})
    const afterSync = await search(h, 'Walk Test')
    expect(afterSync.customers.map((each) => each.guid)).toEqual([guid])
  })

  it('made with its first order offline, is listed and has its page until that order makes it', async () => {
    const h = (harness = await startOrdersHarness())
    await h.stopService()
    const draft = await h.api('createDraft', {
      newCustomer: { name: 'Order Walk Bistro', email: 'bistro@orderwalk.example' },
    })
    const catalogGuid = draft.draft.catalogGuid!
    const { items } = await h.api('searchCatalogItems', { catalogGuid, limit: 20 })
    const item = items.find((each) => each.offered && each.price !== null)!
    await h.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: item.sku, qty: 1 }] })
    const order = await h.api('sendDraft', { id: draft.draft.id })

    const listed = await search(h, 'Order Walk')
    expect(listed.customers).toHaveLength(1)
    expect(listed.customers[0]).toMatchObject({
      guid: order.apiGuid,
      name: 'Order Walk Bistro',
      madeHere: { key: order.apiGuid, state: 'waiting', withOrder: true },
    })
    expect((await h.api('getCustomer', { guid: order.apiGuid })).madeHere).toMatchObject({ withOrder: true })

    await h.restartService()
    await h.api('retryOutbox', {})
    await h.api('flushOutbox')
    await h.api('flushOutbox')
    const created = h.service.control.customers().filter((customer) => customer.name === 'Order Walk Bistro')
    expect(created).toHaveLength(1)
    const sent = await search(h, 'Order Walk')
    expect(sent.customers.map((each) => each.guid)).toEqual([String(created[0]!.guid)])
    expect(sent.customers[0]!.madeHere ?? null).toBeNull()
  })

  it('refused by the supplier, stays listed with its problem and is never a real customer', async () => {
    const h = (harness = await startOrdersHarness())
    // The harness connects with an API key the supplier has not granted customers: a 403 refusal.
    const made = await h.api('addCustomer', { name: 'Refused Walk Deli', email: 'refused@walkdeli.example' })
    await h.api('flushOutbox')
    const entry = (await h.api('listOutbox')).find((each) => each.apiGuid === made.apiGuid)
    expect(entry?.state).toBe('refused')

    const listed = await search(h, 'Refused Walk')
    expect(listed.customers).toHaveLength(1)
    expect(listed.customers[0]).toMatchObject({
      guid: made.apiGuid,
      madeHere: { state: 'refused', problem: expect.stringMatching(/sign in as a user/) as string },
    })
    const page = await h.api('getCustomer', { guid: made.apiGuid })
    expect(page.madeHere).toMatchObject({ state: 'refused' })
    expect((await h.api('searchCustomers', { query: 'Refused Walk', limit: 50 })).total).toBe(0)
  })

  it('a new customer’s first order starts on the catalog and price group the service gives new customers', async () => {
    const h = (harness = await startOrdersHarness())
    const catalogs = (await h.api('listCatalogs', {})).filter((catalog) => catalog.active)
    const first = [...catalogs].sort((a, b) => (a.id ?? Infinity) - (b.id ?? Infinity))[0]!
    const main = first.priceGroups.find((group) => group.isMain)
    // The rep last drafted on another catalog: a new customer still starts where the service puts it.
    const other = catalogs.find((catalog) => catalog.guid !== first.guid)!
    const target = h.orderable()
    await h.api('createDraft', { customerGuid: target.customerGuid, catalogGuid: other.guid })

    const draft = await h.api('createDraft', { newCustomer: { name: 'Catalog Walk Cafe' } })
    expect(draft.draft.catalogGuid).toBe(first.guid)
    expect(draft.priceGroup?.guid ?? null).toBe(main?.guid ?? null)

    const made = await h.api('addCustomer', { name: 'Catalog Walk Deli' })
    const local = await h.api('createDraft', { customerLocalId: made.apiGuid })
    expect(local.draft.catalogGuid).toBe(first.guid)
    const page = await h.api('getCustomer', { guid: made.apiGuid })
    expect(page.catalogGuid).toBe(first.guid)
    expect(page.priceGroup?.name ?? null).toBe(main?.name ?? null)
    // The new-customer form opens on it too.
    expect(catalogs.find((catalog) => catalog.forNewCustomers)?.guid).toBe(first.guid)
  })
})
