/**
 * Test helpers for the contract tests: one call() that speaks HTTP to the double with a chosen
 * credential set, and small lookups over control snapshots.
 */
import type { RunningService } from './types'

/** Response bodies are checked field by field against the spec; `any` keeps those checks readable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any

export type As = 'apiKey' | 'session' | 'customer' | 'none'

export interface Reply {
  status: number
  headers: Headers
  text: string
  json: Json
}

export function credentialHeaders(service: RunningService, as: As): Record<string, string> {
  const c = service.credentials
  switch (as) {
    case 'apiKey':
      return { 'x-apiKey': c.apiKey, 'x-apiSecret': c.apiSecret }
    case 'session':
      return { userGuid: c.userGuid, userToken: c.userToken, supplierGuid: c.supplierGuid }
    case 'customer': {
      const user = c.customerUser
      if (!user) throw new Error('the double has no customer user')
      return { userGuid: user.userGuid, userToken: user.userToken, supplierGuid: user.supplierGuid }
    }
    case 'none':
      return {}
  }
}

export interface RequestOptions {
  as?: As
  headers?: Record<string, string>
  body?: unknown
}

/** One HTTP request to the double, with the credentials `as` names; the reply read whole. */
export async function request(
  service: RunningService,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...credentialHeaders(service, options.as ?? 'apiKey'), ...options.headers }
  let body: string | undefined
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.body)
  }
  const response = await fetch(service.url + path, { method, headers, body })
  const text = await response.text()
  let json: Json = undefined
  if ((response.headers.get('content-type') ?? '').includes('application/json') && text) json = JSON.parse(text)
  return { status: response.status, headers: response.headers, text, json }
}

export const get = (service: RunningService, path: string, options?: RequestOptions): Promise<Reply> =>
  request(service, 'GET', path, options)
export const post = (service: RunningService, path: string, body: unknown, options?: RequestOptions): Promise<Reply> =>
  request(service, 'POST', path, { ...options, body })
export const put = (service: RunningService, path: string, body: unknown, options?: RequestOptions): Promise<Reply> =>
  request(service, 'PUT', path, { ...options, body })

export function catalogs(service: RunningService): { first: Json; second: Json } {
  const [first, second] = service.control.catalogs()
  return { first, second }
}

export function priceGroup(catalog: Json, name = 'Retail'): Json {
  return (catalog.Price_Groups as Json[]).find((group) => group.value === name && group.deleted_at === null)
}

/** Live, active, priced items of a catalog with stock to spare. */
export function orderableItems(
  service: RunningService,
  catalogGuid: string,
  group = 'Retail',
  minimumAvailable = 20,
): Json[] {
  return (service.control.catalogItems(catalogGuid) as Json[]).filter(
    (item) =>
      item.active &&
      item.deleted_at === null &&
      !item.is_product_group &&
      typeof item.pricing[group] === 'number' &&
      (!item.has_inventory || item.qty_on_hand - item.reserved_qty_on_hand >= minimumAvailable),
  )
}

/** An active customer that may order from every catalog. */
export function openCustomer(
  service: RunningService,
  skip = 0,
  predicate: (customer: Json) => boolean = () => true,
): Json {
  const customer = (service.control.customers() as Json[]).filter(
    (candidate) =>
      candidate.active && candidate.deleted_at === null && candidate.lock_catalog_id === 0 && predicate(candidate),
  )[skip]
  if (!customer) throw new Error('no open customer')
  return customer
}

let counter = 0
/** A fresh idempotency key per call. */
export function apiGuid(label = 'test'): string {
  counter += 1
  return `${label}-${process.pid}-${Date.now()}-${counter}`
}

export function orderBody(
  catalog: Json,
  lines: { item: Json; qty: number }[],
  extra: Record<string, unknown> = {},
  group = 'Retail',
): Json {
  return {
    catalogGuid: catalog.guid,
    priceGroupGuid: priceGroup(catalog, group).guid,
    order: { api_guid: apiGuid(), po_no: 'PO-TEST', note: 'from the contract tests' },
    orderItems: lines.map(({ item, qty }) => ({ catalog_item_guid: item.guid, qty })),
    ...extra,
  }
}

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
