import { describe, expect, it } from 'vitest'
import { changesBetween, sentHeaderOf } from '../../../src/renderer/src/components/sent/sent-header'

/**
 * The Change dialog sends only what the rep changed: a field left as shown is never sent, so it
 * cannot overwrite what the supplier changed meanwhile; an emptied date clears it.
 */
const record = {
  is_on_hold: false,
  po_no: 'PO-1',
  note: 'Leave at the back door',
  do_not_ship_before_date: '2026-12-01T00:00:00Z',
  cancel_date: null,
  Ship_To: { address_line_one: '1 Mill Lane', city: 'Bend', country: 'US' },
}

describe('the Change dialog', () => {
  const was = sentHeaderOf(record, null)
  const untouched = { ...was, shipTo: { ...was.shipTo }, cancel: false, newShipTo: false }

  it('fills the fields with the values last synced', () => {
    expect(was).toMatchObject({ onHold: false, poNo: 'PO-1', shipAfter: '2026-12-01', cancelAfter: '' })
    expect(was.shipTo).toMatchObject({ address_line_one: '1 Mill Lane', city: 'Bend', state: '' })
  })

  it('sends nothing for fields left as shown, and only the ones changed', () => {
    expect(changesBetween(was, untouched)).toEqual({})
    expect(changesBetween(was, { ...untouched, onHold: true, poNo: ' PO-2 ' })).toEqual({ onHold: true, poNo: 'PO-2' })
  })

  it('clears an emptied date and sends a new ship-to in full', () => {
    const changes = changesBetween(was, {
      ...untouched,
      shipAfter: '',
      newShipTo: true,
      shipTo: { ...was.shipTo, city: 'Salem' },
    })
    expect(changes).toEqual({
      shipAfter: null,
      shipTo: { kind: 'new', address: { address_line_one: '1 Mill Lane', city: 'Salem', country: 'US' } },
    })
  })

  it('asks to cancel only an order not cancelled already', () => {
    expect(changesBetween(was, { ...untouched, cancel: true })).toEqual({ cancel: true })
    const cancelled = sentHeaderOf({ ...record, is_cancelled: true }, null)
    expect(changesBetween(cancelled, { ...untouched, cancelled: true, cancel: true })).toEqual({})
  })
})
