import { connect } from 'node:net'
import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { sizeProfile } from './generate'
import { startService } from './index'
import type { RunningService } from './types'
import { get, type Json } from './helpers'

async function withService<T>(
  options: Parameters<typeof startService>[0],
  use: (service: RunningService) => Promise<T> | T,
): Promise<T> {
  const service = await startService(options)
  try {
    return await use(service)
  } finally {
    await service.close()
  }
}

function fingerprint(service: RunningService): unknown {
  const [catalog] = service.control.catalogs()
  return {
    credentials: service.credentials.apiKey,
    catalogs: service.control.catalogs().map((row) => [row.guid, row.name]),
    items: service.control
      .catalogItems(String(catalog?.guid))
      .map((row) => [row.guid, row.sku, row.name, row.pricing, row.qty_on_hand]),
    customers: service.control.customers().map((row) => [row.guid, row.name, row.email, row.price_group_id]),
    orders: service.control.orders().map((row) => [row.guid, row.name, row.order_state_id, row.grand_total]),
  }
}

describe('seeded data', () => {
  it('the same seed yields the same data; another seed yields different data', async () => {
    const a = await withService({ size: 'tiny', seed: 42 }, fingerprint)
    const b = await withService({ size: 'tiny', seed: 42 }, fingerprint)
    const c = await withService({ size: 'tiny', seed: 43 }, fingerprint)
    expect(b).toEqual(a)
    expect(c).not.toEqual(a)
  })

  it("size 'tiny' has 2 catalogs, 250 items, 30 customers and about 20 orders, enough for several pages at limit 100", async () => {
    await withService({ size: 'tiny' }, async (service) => {
      const catalogs = service.control.catalogs()
      expect(catalogs).toHaveLength(2)
      const counts = catalogs.map((catalog) => service.control.catalogItems(String(catalog.guid)).length)
      expect(counts[0]! + counts[1]!).toBe(250)
      expect(counts[0]).toBeGreaterThan(100)
      expect(service.control.customers()).toHaveLength(30)
      expect(service.control.orders().length).toBeGreaterThanOrEqual(20)
      expect(service.control.orders().length).toBeLessThan(30)
    })
  })

  it("size 'demo' has 2 catalogs, about 3,000 items, 300 customers and 200 orders", async () => {
    await withService({ size: 'demo' }, async (service) => {
      const catalogs = (await get(service, '/v1/catalogs')).json.catalogs as Json[]
      expect(catalogs).toHaveLength(2)
      let items = 0
      for (const catalog of catalogs) items += service.control.catalogItems(catalog.guid).length
      expect(items).toBe(3000)
      expect((await get(service, '/vendors?limit=1')).json.total).toBe(300)
      expect(service.control.orders().length).toBeGreaterThanOrEqual(200)
    })
  })

  it("a numeric size sets the number of items; 'bench' is 100,000 items and 20,000 customers", async () => {
    await withService({ size: 1000 }, (service) => {
      const items = service.control
        .catalogs()
        .reduce((sum, catalog) => sum + service.control.catalogItems(String(catalog.guid)).length, 0)
      expect(items).toBe(1000)
    })
    expect(sizeProfile('bench')).toMatchObject({ items: 100_000, customers: 20_000 })
  })

  it('seeded timestamps lie before the double clock', async () => {
    await withService({ size: 'tiny' }, (service) => {
      const now = service.control.now().getTime()
      const stamps = [
        ...service.control
          .catalogItems(String(service.control.catalogs()[0]?.guid))
          .flatMap((row) => [row.created_at, row.updated_at]),
        ...service.control.customers().flatMap((row) => [row.created_at, row.updated_at]),
        ...service.control.orders().flatMap((row) => [row.created_at, row.updated_at]),
      ] as string[]
      for (const stamp of stamps) expect(Date.parse(stamp)).toBeLessThan(now)
    })
  })

  it('customers and items read like a real supplier', async () => {
    await withService({ size: 'tiny', seed: 2 }, (service) => {
      const [customer] = service.control.customers() as Json[]
      expect(customer.name).toMatch(/^[A-Z][\w&' ]+ [A-Z]/)
      expect(customer.email).toMatch(/^[a-z]+@[a-z0-9]+\.example$/)
      expect(customer.phone).toMatch(/^\(\d{3}\) 555-\d{4}$/)
      expect(customer.Ship_To.postal_code).toMatch(/^\d{5}$/)
      const [item] = service.control.catalogItems(String(service.control.catalogs()[0]?.guid)) as Json[]
      expect(item.sku).toMatch(/^[A-Z]{3}-\d{5}$/)
      expect(item.description).toContain(item.name.split(' ')[0])
    })
  })
})

describe('families and accounts', () => {
  const upcValid = (code: string): boolean => {
    if (!/^\d{12}$/.test(code)) return false
    let sum = 0
    for (let i = 0; i < 11; i++) sum += Number(code[i]) * (i % 2 === 0 ? 3 : 1)
    return (10 - (sum % 10)) % 10 === Number(code[11])
  }

  it('each catalog has families of 4 to 24 members, colour × size and single-axis, with valid UPCs and stock arriving', async () => {
    await withService({ size: 'demo' }, (service) => {
      let crossed = 0
      let single = 0
      for (const catalog of service.control.catalogs()) {
        const items = service.control.catalogItems(String(catalog.guid)) as Json[]
        for (const item of items) expect(upcValid(item.upc)).toBe(true)
        expect(items.filter((item) => item.qty_incoming > 0).length).toBeGreaterThan(0)
        for (const parent of items.filter((item) => item.is_product_group)) {
          const members = items.filter((item) => item.group_parent_catalog_item_id === parent.id)
          expect(members.length).toBeGreaterThanOrEqual(4)
          expect(members.length).toBeLessThanOrEqual(24)
          expect(members.map((member) => member.group_sequence)).toEqual(members.map((_, index) => index + 1))
          if (members.every((member) => member.color && member.style)) crossed++
          else single++
        }
      }
      expect(crossed).toBeGreaterThanOrEqual(2)
      expect(single).toBeGreaterThanOrEqual(2)
    })
  })

  it('some customers are near their credit limit, some over it, and some order on a standing PO', async () => {
    await withService({ size: 'tiny' }, (service) => {
      const customers = service.control.customers() as Json[]
      const over = customers.filter((customer) => customer.open_balance > customer.credit_limit)
      const near = customers.filter(
        (customer) =>
          customer.open_balance <= customer.credit_limit && customer.open_balance >= customer.credit_limit * 0.9,
      )
      expect(over.length).toBeGreaterThan(0)
      expect(near.length).toBeGreaterThan(0)
      expect(customers.filter((customer) => customer.standing_po).length).toBeGreaterThan(0)
    })
  })
})

describe('network', () => {
  it('the double binds to 127.0.0.1 only', async () => {
    await withService({ size: 'tiny' }, async (service) => {
      const url = new URL(service.url)
      expect(url.hostname).toBe('127.0.0.1')
      const external = Object.values(networkInterfaces())
        .flat()
        .find((address) => address && address.family === 'IPv4' && !address.internal)
      if (!external) return
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: external.address, port: Number(url.port) })
        socket.once('connect', () => {
          socket.destroy()
          resolve(false)
        })
        socket.once('error', () => resolve(true))
      })
      expect(refused).toBe(true)
    })
  })

  it('port picks the listening port', async () => {
    const probe = await startService({ size: 'tiny' })
    const port = Number(new URL(probe.url).port)
    await probe.close()
    await withService({ size: 'tiny', port }, (service) => {
      expect(service.url).toBe(`http://127.0.0.1:${port}`)
    })
  })
})
