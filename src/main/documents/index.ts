import { type AddressInput, type Draft, type DraftLine, type ShipTo } from '../../shared/orders'
import type { DocumentKind, PrintableDocument } from '../../shared/quotes'
import type { Address, CustomerDetail, OrderDetail } from '../../shared/synced'
import type { OrderTracking } from '../../shared/order-tracking'
import { orderStateWords } from '../../shared/order-states'
import { CoreError } from '../errors'
import type { Catalogs } from '../local/catalogs'
import type { LocalData } from '../local/data'
import type { OrderHistory } from '../local/order-history'
import type { OrderDesk } from '../orders/desk'
import type { OrderLookup } from '../orders/lookup'
import { roundMoney } from '../pricing'
import type { QuoteDesk } from '../quotes/desk'

type Json = Record<string, unknown>

export interface DocumentSources {
  local: LocalData
  /** The order rules' view of the local copy, for an item's stock as the draft check gives it. */
  lookup: OrderLookup
  desk: OrderDesk
  quotes: QuoteDesk
  customer(guid: string): CustomerDetail | null
  order(guid: string): OrderDetail | null
  /** The sent order's full copy, when sync has fetched it (shipped and backordered per line). */
  tracking?(guid: string): OrderTracking | null
  catalogSyncedAt(catalogGuid: string): number | null
}

interface Line {
  sku: string
  name: string
  qty: number
  unitPrice: number | null
  lineTotal: number | null
  note: string | null
  shipped?: number
  backordered?: number
  available?: number | null
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null)
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/**
 * What is printed for a quote, a draft, an order waiting in the outbox and a sent order, in one
 * shape, so the renderer has one document view. A customer with hide_pricing gets a document with
 * no price anywhere: the prices are removed here, not hidden by the view, so a PDF cannot carry them.
 */
export class Documents {
  private readonly orders: OrderHistory
  private readonly catalogs: Catalogs
  private readonly lookup: OrderLookup

  constructor(private readonly sources: DocumentSources) {
    this.orders = sources.local.orderHistory
    this.catalogs = sources.local.catalogs
    this.lookup = sources.lookup
  }

  /** The item's available figure as the draft check and the catalog give it (local/stock.ts). */
  private available(catalogGuid: string | null, itemGuid: string | null): number | null {
    return catalogGuid && itemGuid ? (this.lookup.catalogItem(catalogGuid, itemGuid)?.qtyAvailable ?? null) : null
  }

  get(kind: DocumentKind, ref: string): PrintableDocument {
    switch (kind) {
      case 'quote':
        return this.quote(Number(ref))
      case 'draft':
        return this.draft(Number(ref))
      case 'queued':
        return this.queued(ref)
      case 'order':
        return this.order(ref)
    }
  }

  private quote(id: number): PrintableDocument {
    if (!Number.isInteger(id) || id <= 0) throw new CoreError('NOT_FOUND', 'That quote does not exist.')
    const quote = this.sources.quotes.get(id)
    const customer = this.sources.customer(quote.customerGuid)
    return this.finish({
      kind: 'quote',
      title: 'Quote',
      number: quote.number,
      state: null,
      date: quote.createdAt,
      validUntil: quote.validUntil,
      catalogGuid: quote.catalogGuid,
      customer,
      customerName: quote.customerName,
      shipTo: shipToLines(quote.shipTo, customer),
      poNo: quote.poNo,
      note: quote.note,
      lines: quote.lines.map((line) => ({
        itemGuid: line.catalogItemGuid,
        sku: line.sku,
        name: line.name,
        qty: line.qty,
        unitPrice: line.unitPrice,
        lineTotal: line.lineTotal,
        note: line.note || null,
        available: this.available(quote.catalogGuid, line.catalogItemGuid),
      })),
      grandTotal: null,
      pricesAsOf: quote.pricesAsOf,
    })
  }

  private draft(id: number): PrintableDocument {
    if (!Number.isInteger(id) || id <= 0) throw new CoreError('NOT_FOUND', 'That draft does not exist.')
    const check = this.sources.desk.check(id)
    const priced = new Map(check.lines.map((line) => [line.lineId, line]))
    return this.fromDraft(check.draft, {
      kind: 'draft',
      title: 'Draft order',
      number: `Draft ${id}`,
      state: null,
      date: check.draft.updatedAt,
      lines: check.draft.lines.map((line) => ({
        itemGuid: line.catalogItemGuid,
        sku: line.sku,
        name: line.name,
        qty: line.qty,
        unitPrice: priced.get(line.lineId)?.unitPrice ?? null,
        lineTotal: priced.get(line.lineId)?.lineTotal ?? null,
        note: line.note || null,
        available: this.available(check.draft.catalogGuid, line.catalogItemGuid),
      })),
      grandTotal: null,
    })
  }

  private queued(apiGuid: string): PrintableDocument {
    const entry = this.sources.desk.outbox.read.printable(apiGuid)
    if (!entry) throw new CoreError('NOT_FOUND', 'That order is not in the outbox.')
    const { draft, result } = entry
    const sent = entry.state === 'sent'
    return this.fromDraft(draft, {
      kind: sent ? 'order' : 'queued',
      title: sent ? 'Order' : 'Order (waiting to be sent)',
      number: result?.orderName ?? null,
      state: sent ? 'Sent' : null,
      date: entry.sentAt ?? entry.queuedAt,
      // The prices the rep saw and sent: the service's own come back with the confirmation.
      lines: draft.lines.map((line) => ({
        itemGuid: line.catalogItemGuid,
        sku: line.sku,
        name: line.name,
        qty: line.qty,
        unitPrice: line.unitPriceSeen,
        lineTotal: line.unitPriceSeen === null ? null : roundMoney(line.unitPriceSeen * line.qty),
        note: line.note || null,
        available: this.available(draft.catalogGuid, line.catalogItemGuid),
      })),
      grandTotal: result?.grandTotal ?? null,
    })
  }

  private order(guid: string): PrintableDocument {
    const order = this.sources.order(guid)
    if (!order) throw new CoreError('NOT_FOUND', 'That order is not in the local copy. Sync, then try again.')
    const record = order.record
    const items = (Array.isArray(record.Order_Items) ? record.Order_Items : []).filter(
      (line): line is Json => Boolean(line) && typeof line === 'object',
    )
    // Sent from this laptop: the order as it left carries the prices the rep saw and the ship-to,
    // which the history's list projection leaves out.
    const sent = order.apiGuid ? (this.sources.desk.outbox.read.printable(order.apiGuid)?.draft ?? null) : null
    const sentLines = matchSentLines(order.lines, sent?.lines ?? [])
    const customer = order.customerGuid ? this.sources.customer(order.customerGuid) : null
    const tracked = this.sources.tracking?.(guid) ?? null
    const trackedLines = tracked?.lines.length === items.length ? tracked.lines : null
    const lines: Line[] = items.map((item, index) => {
      const catalogItem = (item.Catalog_Item && typeof item.Catalog_Item === 'object' ? item.Catalog_Item : {}) as Json
      const line = order.lines[index]
      const qty = line?.qty ?? 0
      const sentLine = sentLines[index]
      const full = trackedLines?.[index]
      const unitPrice =
        number(item.net_price) ?? full?.unitPrice ?? number(item.list_price_frozen) ?? sentLine?.unitPriceSeen ?? null
      return {
        itemGuid: line?.catalogItemGuid ?? sentLine?.catalogItemGuid ?? null,
        sku: line?.sku ?? text(catalogItem.sku) ?? '',
        name: line?.name ?? text(catalogItem.name) ?? '',
        qty,
        unitPrice,
        lineTotal: number(item.total) ?? full?.lineTotal ?? (unitPrice === null ? null : roundMoney(unitPrice * qty)),
        note: line?.note ?? null,
        ...(full ? { shipped: full.qtyShipped, backordered: full.qtyBackordered } : {}),
        available: this.available(order.catalogGuid, line?.catalogItemGuid ?? sentLine?.catalogItemGuid ?? null),
      }
    })
    return this.finish({
      kind: 'order',
      title: 'Order',
      number: order.name ?? (order.id !== null ? String(order.id) : null),
      state: orderStateWords(tracked?.state.name ?? order.state.name),
      date: order.createdAt,
      validUntil: null,
      catalogGuid: order.catalogGuid,
      customer,
      customerName: order.customerName ?? customer?.name ?? '',
      shipTo: orderShipTo(record.Ship_To, sent?.shipTo ?? null, customer),
      poNo: order.poNo ?? '',
      note: text(record.note) ?? '',
      lines,
      subTotal: order.subTotal,
      grandTotal: order.grandTotal,
      // The service priced a sent order when it took it.
      pricesAsOf: order.createdAt,
      // The service's order list carries no line prices; its single-order read does.
      pricesNote: lines.some((line) => line.unitPrice === null)
        ? 'Line prices come with the order’s details at the next sync.'
        : null,
    })
  }

  private fromDraft(
    draft: Draft,
    parts: {
      kind: DocumentKind
      title: string
      number: string | null
      state: string | null
      date: string
      lines: Line[]
      grandTotal: number | null
    },
  ): PrintableDocument {
    const customer = draft.customerGuid ? this.sources.customer(draft.customerGuid) : null
    const syncedAt = draft.catalogGuid ? this.sources.catalogSyncedAt(draft.catalogGuid) : null
    return this.finish({
      ...parts,
      validUntil: null,
      catalogGuid: draft.catalogGuid,
      customer,
      customerName: customer?.name ?? draft.newCustomer?.name ?? '',
      shipTo: shipToLines(draft.shipTo, customer),
      poNo: draft.poNo,
      note: draft.note,
      pricesAsOf: syncedAt === null ? null : new Date(syncedAt).toISOString(),
    })
  }

  private finish(parts: {
    kind: DocumentKind
    title: string
    number: string | null
    state: string | null
    date: string | null
    validUntil: string | null
    catalogGuid: string | null
    customer: CustomerDetail | null
    customerName: string
    shipTo: string[]
    poNo: string
    note: string
    lines: Line[]
    subTotal?: number | null
    grandTotal: number | null
    pricesAsOf: string | null
    pricesNote?: string | null
  }): PrintableDocument {
    const hidePricing = parts.customer?.hidePricing === true
    const subTotal = parts.subTotal ?? roundMoney(parts.lines.reduce((sum, line) => sum + (line.lineTotal ?? 0), 0))
    const lines = hidePricing ? parts.lines.map((line) => ({ ...line, unitPrice: null, lineTotal: null })) : parts.lines
    const billTo = parts.customer?.addresses.find((a) => a.kind === 'billTo') ?? parts.customer?.addresses[0]
    const charges = parts.grandTotal !== null && subTotal !== null ? roundMoney(parts.grandTotal - subTotal) : null
    // Every line's figure is the catalog's as of its last sync.
    const stocked = parts.lines.some((line) => line.available !== undefined && line.available !== null)
    const stockAsOf = stocked && parts.catalogGuid ? this.sources.catalogSyncedAt(parts.catalogGuid) : null
    return {
      kind: parts.kind,
      title: parts.title,
      number: parts.number,
      state: parts.state,
      date: parts.date,
      validUntil: parts.validUntil,
      supplier: this.supplier(parts.catalogGuid),
      customer: {
        name: parts.customerName,
        // The name is printed once, above the address, even where the address repeats it.
        lines: [
          ...(billTo ? fromAddress(billTo) : []),
          ...[parts.customer?.email, parts.customer?.phone].filter((v): v is string => Boolean(v)),
        ].filter((line) => line !== parts.customerName),
      },
      shipTo: parts.shipTo,
      poNo: text(parts.poNo),
      note: text(parts.note),
      lines,
      subTotal: hidePricing ? null : subTotal,
      charges: hidePricing || charges === null || Math.abs(charges) < 0.005 ? null : charges,
      grandTotal: hidePricing ? null : parts.grandTotal,
      pricesAsOf: parts.pricesAsOf,
      stockAsOf: stockAsOf === null ? null : new Date(stockAsOf).toISOString(),
      pricesNote: hidePricing ? null : (parts.pricesNote ?? null),
      hidePricing,
      fileName: `${
        [parts.title.split(' ')[0], parts.number ?? '', parts.customerName]
          .filter(Boolean)
          .join(' ')
          .replace(/[^\p{L}\p{N} _.-]+/gu, '')
          .trim()
          .slice(0, 120) || 'Satchel document'
      }.pdf`,
    }
  }

  /** The supplier as the service names it on its orders; the catalog's name until an order has been synced. */
  private supplier(catalogGuid: string | null): PrintableDocument['supplier'] {
    const stored = this.orders.latestSupplier()
    const supplier = stored ? (JSON.parse(stored) as Json) : null
    const name =
      (supplier && text(supplier.name)) ?? (catalogGuid ? this.catalogs.nameOf(catalogGuid) : null) ?? 'Supplier'
    return { name, lines: [supplier && text(supplier.email)].filter((v): v is string => Boolean(v)) }
  }
}

/** The company, then the person it goes to (the address's name) when that is someone else. */
function addressee(companyName: string | null, name: string | null): (string | null)[] {
  return [companyName ?? name, companyName && name && name !== companyName ? name : null]
}

function fromAddress(address: Address): string[] {
  return compactLines([
    ...addressee(address.companyName, address.name),
    address.addressLineOne,
    address.addressLineTwo,
    cityLine(address.city, address.state, address.postalCode),
    address.country,
  ])
}

function addressLines(address: Json | AddressInput): string[] {
  const a = address as Json
  return compactLines([
    ...addressee(text(a.company_name), text(a.name)),
    text(a.address_line_one),
    text(a.address_line_two),
    cityLine(text(a.city), text(a.state), text(a.postal_code)),
    text(a.country),
  ])
}

function shipToLines(shipTo: ShipTo | null, customer: CustomerDetail | null): string[] {
  if (shipTo?.kind === 'new') return addressLines(shipTo.address)
  const chosen =
    shipTo?.kind === 'customerAddress' ? customer?.addresses.find((a) => a.guid === shipTo.addressGuid) : undefined
  const fallback =
    customer?.addresses.find((a) => a.kind === 'shipTo' && a.isMainShipTo) ??
    customer?.addresses.find((a) => a.kind === 'shipTo')
  const address = chosen ?? fallback
  return address ? fromAddress(address) : []
}

/**
 * A synced order's ship-to: the service's full address when the order has one; the history's list
 * projection names it only, so then the customer's address it names, the ship-to the order was sent
 * with from this laptop, or the customer's main ship-to.
 */
function orderShipTo(stored: unknown, sent: ShipTo | null, customer: CustomerDetail | null): string[] {
  const shipTo = stored && typeof stored === 'object' ? (stored as Json) : null
  if (shipTo && text(shipTo.address_line_one)) return addressLines(shipTo)
  const named =
    shipTo && text(shipTo.guid)
      ? customer?.addresses.find((a) => a.guid?.toLowerCase() === text(shipTo.guid)?.toLowerCase())
      : undefined
  return named ? fromAddress(named) : shipToLines(sent, customer)
}

/**
 * The line as sent for each synced line: by catalog item where the history names it, else by SKU,
 * else by position when the order kept the same number of lines.
 */
function matchSentLines(synced: OrderDetail['lines'], sent: DraftLine[]): (DraftLine | undefined)[] {
  const unused = new Set(sent)
  const take = (found: DraftLine | undefined): DraftLine | undefined => {
    if (found) unused.delete(found)
    return found
  }
  const sku = (value: string | null | undefined): string => (value ?? '').trim().toLowerCase()
  const matched = synced.map((line) =>
    take(
      [...unused].find(
        (s) => line.catalogItemGuid !== null && s.catalogItemGuid.toLowerCase() === line.catalogItemGuid.toLowerCase(),
      ) ?? [...unused].find((s) => line.sku !== null && sku(s.sku) === sku(line.sku)),
    ),
  )
  return synced.length === sent.length
    ? matched.map((found, index) => found ?? (unused.has(sent[index]!) ? take(sent[index]) : undefined))
    : matched
}

function cityLine(city: string | null, state: string | null, postalCode: string | null): string | null {
  const line = [[city, state].filter(Boolean).join(', '), postalCode].filter(Boolean).join(' ')
  return line || null
}

function compactLines(lines: (string | null | undefined)[]): string[] {
  return lines.filter((line): line is string => typeof line === 'string' && line.trim() !== '')
}
