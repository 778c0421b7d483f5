import {
  lineQtyProblem,
  maxOrderLines,
  tooManyLinesMessage,
  type Draft,
  type DraftCheck,
  type DraftIssue,
  type PricedLine,
} from '../../shared/orders'
import type { CustomerFacts, OrderLookup } from './lookup'
import { lineBreak, roundMoney, unitPriceAt } from '../pricing'
import { resolvePriceGroup } from './price-group'
import { formatMoney } from '../../shared/money'

const fieldIssue = (field: string, message: string, severity: DraftIssue['severity'] = 'error'): DraftIssue => ({
  field,
  lineId: null,
  severity,
  message,
})
const lineIssue = (lineId: string, message: string, severity: DraftIssue['severity'] = 'error'): DraftIssue => ({
  field: null,
  lineId,
  severity,
  message,
})
const qtyIssue = (lineId: string, message: string): DraftIssue => ({ field: 'qty', lineId, severity: 'error', message })

/** What is wrong with a quantity by the contract's rule (`lineQtyProblem`), as a sentence, or null. */
export function quantityProblem(qty: number): string | null {
  const problem = lineQtyProblem(qty)
  return problem === null ? null : `${problem}.`
}

function formatQty(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2)
}

/**
 * The order rules a rep can check with no network, against the local copy: one message per field
 * and per line, errors that block sending and warnings that do not. The service checks again when
 * the order arrives; these checks exist so that rejection is rare and never a surprise.
 */
export function checkDraft(draft: Draft, lookup: OrderLookup, locale = 'en-US'): DraftCheck {
  const money = (amount: number) => formatMoney(amount, locale)
  const issues: DraftIssue[] = []
  let customer: CustomerFacts | null = null

  if (draft.customerGuid) {
    customer = lookup.customer(draft.customerGuid)
    if (!customer)
      issues.push(
        fieldIssue('customer', 'This customer is not on this laptop any more. Sync, or choose another customer.'),
      )
    else if (!customer.active)
      issues.push(fieldIssue('customer', `${customer.name} is inactive; the supplier will refuse orders for them.`))
  } else if (!draft.newCustomer) {
    issues.push(fieldIssue('customer', 'Choose a customer, or enter a new one.'))
  }

  let priceGroup: DraftCheck['priceGroup'] = null
  if (!draft.catalogGuid) {
    issues.push(fieldIssue('catalog', 'Choose a catalog.'))
  } else {
    const allowed = draft.customerGuid ? lookup.catalogsForCustomer(draft.customerGuid) : null
    if (allowed && !allowed.includes(draft.catalogGuid))
      issues.push(fieldIssue('catalog', 'This customer may not order from this catalog.'))
    const group = resolvePriceGroup(lookup, draft.catalogGuid, draft.priceGroupGuid, customer)
    if (group) priceGroup = { guid: group.guid, name: group.name }
    else issues.push(fieldIssue('priceGroup', 'No price group applies: choose one for this order.'))
  }

  if (customer?.requirePo && draft.poNo.trim() === '')
    issues.push(fieldIssue('poNo', `${customer.name} requires a PO number on every order.`))
  const shipTo = draft.shipTo
  if (
    shipTo?.kind === 'customerAddress' &&
    customer &&
    !customer.addresses.some((a) => a.guid === shipTo.addressGuid)
  ) {
    issues.push(fieldIssue('shipTo', 'The chosen ship-to address is no longer on this customer. Choose another.'))
  }
  if (draft.lines.length > maxOrderLines) issues.push(fieldIssue('lines', tooManyLinesMessage()))

  const lines: PricedLine[] = []
  let subTotal = 0
  for (const line of draft.lines) {
    const priced: PricedLine = {
      lineId: line.lineId,
      unitPrice: null,
      lineTotal: null,
      priceChanged: false,
      availabilityChanged: false,
    }
    lines.push(priced)
    const qtyProblem = quantityProblem(line.qty)
    if (qtyProblem) issues.push(qtyIssue(line.lineId, qtyProblem))
    const item = draft.catalogGuid ? lookup.catalogItem(draft.catalogGuid, line.catalogItemGuid) : null
    if (!item || item.deleted) {
      issues.push(lineIssue(line.lineId, `${line.sku} is no longer in this catalog. Remove the line.`))
      continue
    }
    if (item.isFamily) {
      issues.push(lineIssue(line.lineId, `${item.sku} names a family; order its members (open its grid) instead.`))
      continue
    }
    if (!item.active) issues.push(lineIssue(line.lineId, `${item.sku} is inactive and cannot be ordered.`))
    if (!qtyProblem && item.minOrderQty !== null && item.minOrderQty > 0 && line.qty < item.minOrderQty) {
      issues.push(
        lineIssue(line.lineId, `The minimum order quantity for ${item.sku} is ${formatQty(item.minOrderQty)}.`),
      )
    }
    if (
      !qtyProblem &&
      item.hasInventory &&
      !item.allowBackorder &&
      item.qtyAvailable !== null &&
      line.qty > item.qtyAvailable
    ) {
      priced.availabilityChanged = line.qtyAvailableSeen === null || line.qty <= line.qtyAvailableSeen
      const since = priced.availabilityChanged ? ' (there was enough when the line was added)' : ''
      issues.push(
        lineIssue(
          line.lineId,
          `Only ${formatQty(Math.max(0, item.qtyAvailable))} of ${item.sku} in stock at the last sync${since}; the supplier may refuse the line.`,
          'warning',
        ),
      )
    }
    if (priceGroup === null) continue
    const price = unitPriceAt(item, priceGroup.name, line.qty)
    if (!price.offered) {
      issues.push(lineIssue(line.lineId, `${item.sku} is not offered to price group ${priceGroup.name}.`))
      continue
    }
    priced.unitPrice = price.unitPrice
    // "5 more for $8.91" invites buying more of something that cannot be ordered at all.
    if (!qtyProblem && item.active) priced.priceBreak = lineBreak(item, priceGroup.name, line.qty)
    priced.priceChanged = line.unitPriceSeen !== null && Math.abs(line.unitPriceSeen - price.unitPrice) >= 0.005
    if (priced.priceChanged) {
      issues.push(
        lineIssue(
          line.lineId,
          `The price of ${item.sku} changed from ${money(line.unitPriceSeen!)} to ${money(price.unitPrice)} since it was added.`,
          'warning',
        ),
      )
    }
    // A refused quantity has no total. Every total is a finite number, or the order is refused on
    // the line that makes it overflow: the outbox, its reply and the service all need a number.
    if (qtyProblem) continue
    const lineTotal = roundMoney(price.unitPrice * line.qty)
    if (!Number.isFinite(lineTotal)) {
      issues.push(
        qtyIssue(line.lineId, `The total of this line (${item.sku}) is too large to be a price; lower the quantity.`),
      )
      continue
    }
    if (!Number.isFinite(roundMoney(subTotal + lineTotal))) {
      issues.push(
        qtyIssue(
          line.lineId,
          `With this line (${item.sku}) the order’s total is too large to be a price; lower the quantity.`,
        ),
      )
      continue
    }
    priced.lineTotal = lineTotal
    subTotal += lineTotal
  }

  const account = customer ? accountOf(customer, roundMoney(subTotal)) : null
  if (account?.overLimit) {
    const room = account.room ?? 0
    issues.push({
      field: 'credit',
      lineId: null,
      severity: 'warning',
      message:
        room <= 0
          ? `${customer!.name} is already ${money(-room)} over their credit limit of ${money(account.creditLimit!)}; the supplier may hold this order.`
          : `This order (${money(roundMoney(subTotal))}) takes ${customer!.name} past their credit limit: ${money(room)} of credit left. The supplier may hold it.`,
    })
  }
  issues.push(...supplierIssues(draft))
  // An empty draft is where every order starts, not a problem to fix: it simply cannot be sent yet.
  const sendable = draft.lines.length > 0 && !issues.some((i) => i.severity === 'error')
  return { draft, issues, lines, subTotal: roundMoney(subTotal), priceGroup, sendable, account }
}

/**
 * The customer's account beside this order. Only a warning can come of it: finance decides on the
 * credit, and their open balance may have moved since the last sync.
 */
function accountOf(customer: CustomerFacts, subTotal: number): NonNullable<DraftCheck['account']> {
  const { creditLimit, openBalance } = customer
  const room = creditLimit !== null && creditLimit > 0 ? roundMoney(creditLimit - (openBalance ?? 0)) : null
  return {
    creditLimit,
    openBalance,
    room,
    overLimit: room !== null && subTotal > 0 && subTotal > room,
    standingPo: customer.standingPo,
    requirePayment: customer.requirePayment,
    taxExempt: customer.taxExempt,
  }
}

/**
 * The supplier's reasons for refusing this order, while they still apply: the order-level ones until
 * it is sent again, a line's while the line is as it was sent. Warnings, never errors: the local copy
 * cannot tell whether the supplier still objects, so Send asks it again.
 */
function supplierIssues(draft: Draft): DraftIssue[] {
  const rejection = draft.rejection
  if (!rejection) return []
  const issues: DraftIssue[] = []
  const lineById = new Map(draft.lines.map((line) => [line.lineId, line]))
  const onOrder = (message: string): DraftIssue => ({
    field: null,
    lineId: null,
    severity: 'warning',
    message,
    supplier: true,
  })
  // The client's message already says who refused it ("The ordering service rejected the request: …").
  if (rejection.message) issues.push(onOrder(rejection.message))
  for (const said of rejection.lines) {
    if (said.lineId === null) {
      issues.push(onOrder(said.sku && !said.message.includes(said.sku) ? `${said.sku}: ${said.message}` : said.message))
      continue
    }
    const line = lineById.get(said.lineId)
    if (!line || line.qty !== said.sentQty || line.note !== said.sentNote) continue
    issues.push({ field: null, lineId: line.lineId, severity: 'warning', message: said.message, supplier: true })
  }
  return issues
}
