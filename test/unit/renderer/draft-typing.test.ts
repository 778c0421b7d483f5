import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Draft, DraftCheck } from '../../../src/shared/orders'

/**
 * What the rep typed always wins over the core's echo of an older save. Against a fake core behind
 * window.satchel whose save replies wait until the test lets them go, as a core busy with a first
 * sync answers slower than the rep types.
 */
const lineId = 'line-1'
let stored: Draft
const replies: (() => void)[] = []
let refuse = false

function checkOf(draft: Draft): DraftCheck {
  return { draft: structuredClone(draft), issues: [], lines: [], subTotal: 0, priceGroup: null, sendable: true }
}

/** The core saves at once; its reply, the draft as saved then, waits for the test. */
function slowSave(apply: (draft: Draft) => void) {
  if (!refuse) apply(stored)
  const answer = refuse
    ? { ok: false, error: { code: 'DISK_FULL', message: 'The disk is full.' } }
    : { ok: true, value: checkOf(stored) }
  return new Promise((resolve) => replies.push(() => resolve(answer)))
}

const fake = {
  getDraft: async () => ({ ok: true, value: checkOf(stored) }),
  listDrafts: async () => ({ ok: true, value: [] }),
  updateDraft: ({ changes }: { changes: Partial<Draft> }) => slowSave((draft) => Object.assign(draft, changes)),
  updateDraftLine: ({ qty, note }: { qty?: number; note?: string }) =>
    slowSave((draft) => {
      const line = draft.lines[0]!
      if (qty !== undefined) line.qty = qty
      if (note !== undefined) line.note = note
    }),
  onEvent: () => () => undefined,
}

let useDraftsStore: typeof import('../../../src/renderer/src/stores/drafts').useDraftsStore

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake })
  ;({ useDraftsStore } = await import('../../../src/renderer/src/stores/drafts'))
})

beforeEach(() => {
  replies.length = 0
  refuse = false
  stored = {
    id: 7,
    apiGuid: '00000000-0000-4000-8000-000000000007',
    customerGuid: null,
    newCustomer: null,
    catalogGuid: null,
    priceGroupGuid: null,
    poNo: '',
    note: '',
    shippingInstructions: '',
    shipTo: null,
    remainInPreliminary: false,
    rejection: null,
    createdAt: '',
    updatedAt: '',
    lines: [
      {
        lineId,
        catalogItemGuid: '00000000-0000-4000-8000-000000000001',
        sku: 'KLM-1',
        name: 'Widget',
        qty: 2,
        note: '',
        unitPriceSeen: null,
        qtyAvailableSeen: null,
      },
    ],
  }
  setActivePinia(createPinia())
})

async function reply(): Promise<void> {
  replies.shift()!()
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0))
}

describe('typing against slow saves', () => {
  it('a PO typed while its saves answer late keeps every key, and the draft ends as typed', async () => {
    const drafts = useDraftsStore()
    await drafts.load(7)
    const shown = () => drafts.typed(7, 'poNo') ?? drafts.checks[7]!.draft.poNo
    const saves: Promise<unknown>[] = []
    const typeAndSave = (value: string) => {
      drafts.type(7, 'poNo', value)
      const typing = drafts.handOver(7, 'poNo')!
      saves.push(drafts.update(7, { poNo: typing.value }, [typing.handed]))
    }
    typeAndSave('KLM')
    typeAndSave('KLMN')
    drafts.type(7, 'poNo', 'KLMNO')
    await reply()
    expect(shown()).toBe('KLMNO')
    await reply()
    expect(shown()).toBe('KLMNO')
    drafts.type(7, 'poNo', 'KLMNOP')
    const last = drafts.handOver(7, 'poNo')!
    saves.push(drafts.update(7, { poNo: last.value }, [last.handed]))
    await reply()
    await Promise.all(saves)
    expect(drafts.typed(7, 'poNo')).toBeUndefined()
    expect(shown()).toBe('KLMNOP')
    expect(stored.poNo).toBe('KLMNOP')
  })

  it('a note typed back to what the core holds is still saved while a longer one is on its way', async () => {
    const drafts = useDraftsStore()
    await drafts.load(7)
    stored.note = 'ring'
    await drafts.load(7)
    drafts.type(7, 'note', 'rings')
    const longer = drafts.handOver(7, 'note')!
    const first = drafts.update(7, { note: longer.value }, [longer.handed])
    drafts.type(7, 'note', 'ring')
    const back = drafts.handOver(7, 'note')
    expect(back?.value).toBe('ring')
    const second = drafts.update(7, { note: back!.value }, [back!.handed])
    await reply()
    expect(drafts.typed(7, 'note')).toBe('ring')
    await reply()
    await Promise.all([first, second])
    expect(stored.note).toBe('ring')
    expect(drafts.checks[7]!.draft.note).toBe('ring')
  })

  it('a quantity typed over one still being saved stays, and a line note’s echo leaves the quantity alone', async () => {
    const drafts = useDraftsStore()
    await drafts.load(7)
    drafts.type(7, `qty:${lineId}`, '5')
    const five = drafts.handOver(7, `qty:${lineId}`)!
    const saving = drafts.updateLine(7, lineId, { qty: 5 }, [five.handed])
    drafts.type(7, `qty:${lineId}`, '7')
    drafts.type(7, `lineNote:${lineId}`, 'ring')
    await reply()
    await saving
    expect(drafts.typed(7, `qty:${lineId}`)).toBe('7')
    expect(drafts.typed(7, `lineNote:${lineId}`)).toBe('ring')
    const note = drafts.handOver(7, `lineNote:${lineId}`)!
    const noting = drafts.updateLine(7, lineId, { note: note.value }, [note.handed])
    await reply()
    await noting
    expect(drafts.typed(7, `qty:${lineId}`)).toBe('7')
    expect(drafts.typed(7, `lineNote:${lineId}`)).toBeUndefined()
  })

  it('a refused save keeps what was typed, to be handed over again', async () => {
    const drafts = useDraftsStore()
    await drafts.load(7)
    refuse = true
    drafts.type(7, 'poNo', 'PO-9')
    const typing = drafts.handOver(7, 'poNo')!
    expect(drafts.handOver(7, 'poNo')).toBeNull()
    const outcome = drafts.update(7, { poNo: typing.value }, [typing.handed]).catch((error: Error) => error.message)
    await reply()
    expect(await outcome).toBe('The disk is full.')
    expect(drafts.typed(7, 'poNo')).toBe('PO-9')
    expect(drafts.handOver(7, 'poNo')?.value).toBe('PO-9')
  })
})
