/**
 * What the rep types that reaches the supplier's documents (a PO, an order's note and shipping
 * instructions, a line's note, a change to a sent order) refuses the characters nobody sees: C0 and
 * C1 controls (NUL among them) and the text-direction overrides and isolates that make "PO-1234"
 * display as something else. Tab and line breaks stay: a note has lines.
 */
import { describe, expect, it } from 'vitest'
import { contract, connectionInputSchema } from '../../../src/shared/contract'

const unseen = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\u202a', '\u202e', '\u2066', '\u2069']

describe('typed text', () => {
  it('a draft’s PO, note and shipping instructions refuse controls and direction overrides', () => {
    for (const character of unseen)
      for (const field of ['poNo', 'note', 'shippingInstructions'])
        expect(
          contract.updateDraft.input.safeParse({ id: 1, changes: { [field]: `PO-12${character}34` } }).success,
          `${field} with U+${character.codePointAt(0)!.toString(16).padStart(4, '0')}`,
        ).toBe(false)
    expect(
      contract.updateDraft.input.safeParse({ id: 1, changes: { note: 'Back door.\n\tRing twice.\r\nThanks' } }).success,
    ).toBe(true)
    expect(contract.updateDraft.input.safeParse({ id: 1, changes: { poNo: 'PO-Ünïcødé-12' } }).success).toBe(true)
  })

  it('a line’s note, a sent order’s change and a new customer’s note refuse them too', () => {
    expect(
      contract.updateDraftLine.input.safeParse({ id: 1, lineId: 'a', note: 'cut \u202egnol\u202c please' }).success,
    ).toBe(false)
    expect(
      contract.addDraftLines.input.safeParse({ id: 1, lines: [{ sku: 'A-1', qty: 1, note: 'x\u0000y' }] }).success,
    ).toBe(false)
    expect(
      contract.changeSentOrder.input.safeParse({ order: 'SO-1', changes: { poNo: '\u2066PO-9\u2069' } }).success,
    ).toBe(false)
    expect(contract.changeSentOrder.input.safeParse({ order: 'SO-1', changes: { note: 'a\u0000' } }).success).toBe(
      false,
    )
    expect(contract.addCustomer.input.safeParse({ name: 'Deli \u202eilnoc' }).success).toBe(false)
    expect(contract.addCustomer.input.safeParse({ name: 'Harbor Deli', phone: '503\u0000555' }).success).toBe(false)
    expect(contract.addCustomer.input.safeParse({ name: 'Harbor Deli' }).success).toBe(true)
    const refused = contract.updateDraft.input.safeParse({ id: 1, changes: { poNo: 'PO\u0000' } })
    expect(refused.error?.issues[0]?.message).toMatch(/characters that do not show/)
  })
})

describe('the service address', () => {
  it('refuses a user name or password in it: credentials are entered as such, never stored in the address', () => {
    const parsed = connectionInputSchema.safeParse({
      baseUrl: 'https://rep:hunter2@orders.example.com',
      auth: { kind: 'apiKey', apiKey: 'k', apiSecret: 's' },
    })
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]?.message).toMatch(/user name and password out of the service address/)
  })
})
