import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import {
  request,
  catalogs,
  credentialHeaders,
  get,
  openCustomer,
  orderableItems,
  orderBody,
  post,
  put,
  type Json,
} from './helpers'

let service: RunningService
beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 7 })
})
afterAll(async () => {
  await service.close()
})

describe('authentication', () => {
  it('either-auth endpoints accept the API key set and the user session set', async () => {
    const { first } = catalogs(service)
    const customer = openCustomer(service)
    const paths = [
      '/v1/catalogs',
      `/v1/catalog/${first.guid}/price_groups`,
      `/v1/catalog/${first.guid}/catalog_items`,
      `/v1/${first.guid}/catalogItems`,
      '/vendors',
      `/v1/vendors/${customer.guid}`,
      '/v1/orders',
      '/v1/orders/list',
    ]
    for (const path of paths) {
      expect((await get(service, path, { as: 'apiKey' })).status, path).toBe(200)
      expect((await get(service, path, { as: 'session' })).status, path).toBe(200)
    }
  })

  it('missing credentials give 401 with a JSON error body', async () => {
    const reply = await get(service, '/v1/catalogs', { as: 'none' })
    expect(reply.status).toBe(401)
    expect(typeof reply.json.message).toBe('string')
    expect(reply.json.code).toBe('UNAUTHORIZED')
  })

  it('an invalid API key or secret gives 401', async () => {
    const wrongSecret = await get(service, '/v1/catalogs', {
      as: 'none',
      headers: { 'x-apiKey': service.credentials.apiKey, 'x-apiSecret': 'nope' },
    })
    const wrongKey = await get(service, '/v1/catalogs', {
      as: 'none',
      headers: { 'x-apiKey': 'nope', 'x-apiSecret': service.credentials.apiSecret },
    })
    expect(wrongSecret.status).toBe(401)
    expect(wrongKey.status).toBe(401)
  })

  it('an incomplete API key set gives 401', async () => {
    const reply = await get(service, '/v1/catalogs', {
      as: 'none',
      headers: { 'x-apiKey': service.credentials.apiKey },
    })
    expect(reply.status).toBe(401)
  })

  it('an invalid or incomplete user session gives 401', async () => {
    const session = credentialHeaders(service, 'session')
    expect(
      (await get(service, '/v1/catalogs', { as: 'none', headers: { ...session, userToken: 'forged.jwt.token' } }))
        .status,
    ).toBe(401)
    expect(
      (
        await get(service, '/v1/catalogs', {
          as: 'none',
          headers: { ...session, supplierGuid: '00000000-0000-4000-8000-000000000000' },
        })
      ).status,
    ).toBe(401)
    expect(
      (
        await get(service, '/v1/catalogs', {
          as: 'none',
          headers: { userGuid: session.userGuid ?? '', userToken: session.userToken ?? '' },
        })
      ).status,
    ).toBe(401)
  })

  it('session-only endpoints answer a valid API key with 403', async () => {
    const customer = openCustomer(service)
    const [order] = service.control.orders() as Json[]
    const attempts = [
      await post(service, '/vendors', { newVendor: { name: 'Key Holder Cafe' } }),
      await put(service, `/v1/vendors/${customer.guid}`, { name: customer.name, email: customer.email }),
      await put(service, `/v1/orders/${order.guid}`, { note: 'x' }),
      await post(service, '/v1/order/submit', { orderGuid: order.guid }),
    ]
    for (const reply of attempts) {
      expect(reply.status).toBe(403)
      expect(reply.json.code).toBe('FORBIDDEN')
    }
  })

  it('POST /v2/order without x-apiKey/x-apiSecret gives a plain-text 400', async () => {
    const { first } = catalogs(service)
    const [item] = orderableItems(service, first.guid)
    const body = { ...orderBody(first, [{ item, qty: 1 }]), vendorGuid: openCustomer(service).guid }
    for (const as of ['none', 'session'] as const) {
      const reply = await post(service, '/v2/order', body, { as })
      expect(reply.status).toBe(400)
      expect(reply.headers.get('content-type')).toMatch(/^text\/plain/)
      expect(reply.text).toMatch(/x-apiKey/)
    }
  })

  it('POST /v2/order with a wrong API key gives 401', async () => {
    const reply = await post(
      service,
      '/v2/order',
      {},
      { as: 'none', headers: { 'x-apiKey': 'wrong', 'x-apiSecret': 'wrong' } },
    )
    expect(reply.status).toBe(401)
  })

  it('POST /v1/order without user session headers gives a plain-text 400', async () => {
    const customer = openCustomer(service)
    for (const as of ['none', 'apiKey'] as const) {
      const reply = await post(service, '/v1/order', {}, { as, headers: { vendorGuid: customer.guid } })
      expect(reply.status).toBe(400)
      expect(reply.headers.get('content-type')).toMatch(/^text\/plain/)
      expect(reply.json).toBeUndefined()
    }
  })

  it('the userGuid header with the API key attributes the call to that user', async () => {
    const { first } = catalogs(service)
    const [item] = orderableItems(service, first.guid)
    const customer = openCustomer(service)
    const reply = await post(service, '/v1/orderWithItems', orderBody(first, [{ item, qty: 1 }]), {
      headers: { vendorGuid: customer.guid, userGuid: service.credentials.userGuid },
    })
    expect(reply.status).toBe(200)
    expect(reply.json.order.User.guid).toBe(service.credentials.userGuid)
    const unattributed = await post(service, '/v1/orderWithItems', orderBody(first, [{ item, qty: 1 }]), {
      headers: { vendorGuid: customer.guid },
    })
    expect(unattributed.json.order.User.guid).not.toBe(service.credentials.userGuid)
  })

  it('GET /vendors requires supplier-level access', async () => {
    const reply = await get(service, '/vendors', { as: 'customer' })
    expect(reply.status).toBe(403)
  })

  it('a customer user may act only for its own customer', async () => {
    const other = openCustomer(
      service,
      0,
      (candidate) => candidate.guid !== service.credentials.customerUser?.vendorGuid,
    )
    expect(
      (await get(service, `/v1/vendors/${service.credentials.customerUser?.vendorGuid}`, { as: 'customer' })).status,
    ).toBe(200)
    expect((await get(service, `/v1/vendors/${other.guid}`, { as: 'customer' })).status).toBe(403)
    expect((await get(service, '/v1/catalogs', { as: 'customer', headers: { vendorGuid: other.guid } })).status).toBe(
      403,
    )
  })

  it('header names are matched case-insensitively', async () => {
    const reply = await request(service, 'GET', '/v1/catalogs', {
      as: 'none',
      headers: { 'X-APIKEY': service.credentials.apiKey, 'x-apisecret': service.credentials.apiSecret },
    })
    expect(reply.status).toBe(200)
  })
})

describe('errors', () => {
  it('error bodies are JSON { message, error?, code? }', async () => {
    const replies = [
      await get(service, '/v1/nothing/here/at/all'),
      await get(service, '/v1/catalog/not-a-guid/catalog_items'),
      await get(service, `/v1/catalog/${catalogs(service).first.guid}/catalog_items?lastUpdatedAt=yesterday`),
      await request(service, 'POST', '/v1/orderWithItems', {
        headers: { 'content-type': 'application/json' },
        body: undefined,
      }),
    ]
    for (const reply of replies) {
      expect(reply.status).toBeGreaterThanOrEqual(400)
      expect(reply.headers.get('content-type')).toMatch(/application\/json/)
      expect(typeof reply.json.message).toBe('string')
      for (const key of Object.keys(reply.json)) expect(['message', 'error', 'code', 'errors']).toContain(key)
      if (reply.json.error !== undefined) expect(typeof reply.json.error).toBe('string')
      if (reply.json.code !== undefined) expect(typeof reply.json.code).toBe('string')
    }
  })

  it('a body that is not JSON gives 400', async () => {
    const response = await fetch(`${service.url}/v1/orderWithItems`, {
      method: 'POST',
      headers: { ...credentialHeaders(service, 'apiKey'), 'content-type': 'application/json' },
      body: '{ not json',
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as Json).code).toBe('INVALID_JSON')
  })
})

describe('an expired session', () => {
  let own: RunningService
  beforeAll(async () => {
    own = await startService({ size: 'tiny', seed: 8 })
  })
  afterAll(async () => {
    await own.close()
  })

  it('answers 401 SESSION_EXPIRED to the old token and takes the new one expireSession issued', async () => {
    const old = own.credentials
    const { userToken } = own.control.expireSession()
    expect(userToken).not.toBe(old.userToken)
    const expired = await get(own, '/v1/catalogs', { as: 'session' })
    expect(expired.status).toBe(401)
    expect(expired.json).toMatchObject({ code: 'SESSION_EXPIRED', message: expect.stringContaining('sign in again') })
    const renewed = await get(own, '/v1/catalogs', {
      as: 'none',
      headers: { userGuid: old.userGuid, userToken, supplierGuid: old.supplierGuid },
    })
    expect(renewed.status).toBe(200)
    expect((await get(own, '/v1/catalogs', { as: 'apiKey' })).status).toBe(200)
  })

  it('the API key is granted the customer endpoints on request (grantApiKeyCustomers)', async () => {
    const body = { newVendor: { name: 'Granted Key Cafe' } }
    expect((await post(own, '/vendors', body)).status).toBe(403)
    own.control.grantApiKeyCustomers()
    const created = await post(own, '/vendors', body)
    expect(created.status).toBe(200)
    const guid = (created.json.vendor as Json).guid as string
    expect(
      (await put(own, `/v1/vendors/${guid}`, { name: 'Granted Key Café', email: 'granted@example.com' })).status,
    ).toBe(200)
    own.control.grantApiKeyCustomers(false)
    expect((await post(own, '/vendors', body)).status).toBe(403)
  })
})
