import type { ShipTo } from '../../../../shared/orders'
import type { OrderChanges } from '../../../../shared/writes'
import { addressFormOf, addressInput } from '../../address-form'
import type { AddressForm } from '../AddressFields.vue'

/** A sent order's header as the Change dialog fills its fields: the values last synced, or as asked. */
export interface SentHeader {
  onHold: boolean
  cancelled: boolean
  poNo: string
  note: string
  /** YYYY-MM-DD or empty. */
  shipAfter: string
  cancelAfter: string
  shipTo: AddressForm
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function day(value: unknown): string {
  return typeof value === 'string' && value.length >= 10 ? value.slice(0, 10) : ''
}

/**
 * From the order's record (the service's field names: synced, or as the core says it will be once
 * its waiting changes go); `onHold` from the full copy when there is one.
 */
export function sentHeaderOf(record: Record<string, unknown>, onHold: boolean | null): SentHeader {
  return {
    onHold: onHold ?? record.is_on_hold === true,
    cancelled: record.is_cancelled === true,
    poNo: text(record.po_no),
    note: text(record.note),
    shipAfter: day(record.do_not_ship_before_date),
    cancelAfter: day(record.cancel_date),
    shipTo: addressFormOf(record.Ship_To),
  }
}

/**
 * Only what the rep changed, as changeSentOrder takes it: an untouched field is left out, so it
 * cannot overwrite what the supplier changed meanwhile. A date emptied clears it.
 */
export function changesBetween(
  was: SentHeader,
  now: SentHeader & { cancel: boolean; newShipTo: boolean },
): OrderChanges {
  const changes: OrderChanges = {}
  if (now.onHold !== was.onHold) changes.onHold = now.onHold
  if (now.cancel && !was.cancelled) changes.cancel = true
  if (now.poNo.trim() !== was.poNo.trim()) changes.poNo = now.poNo.trim()
  if (now.note.trim() !== was.note.trim()) changes.note = now.note.trim()
  if (now.shipAfter !== was.shipAfter) changes.shipAfter = now.shipAfter || null
  if (now.cancelAfter !== was.cancelAfter) changes.cancelAfter = now.cancelAfter || null
  if (now.newShipTo && JSON.stringify(now.shipTo) !== JSON.stringify(was.shipTo)) {
    const address = addressInput(now.shipTo)
    if (address) changes.shipTo = { kind: 'new', address } satisfies ShipTo
  }
  return changes
}
