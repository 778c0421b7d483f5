import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { computed, effectScope, type EffectScope } from 'vue'
import type { Draft, DraftCheck, DraftIssue } from '../../../src/shared/orders'

/**
 * Send on the order screen, against a fake core behind window.satchel: the credit limit's question,
 * a send queued behind the edits before it, what a refusal tells the rep, and nothing sent twice
 * from a draft already sent.
 */
const apiGuid = '00000000-0000-4000-8000-000000000007'
let stored: Draft
let issues: DraftIssue[] = []
let overLimit = false
let refusal: { code: string; message: string } | null = null
const calls: string[] = []
const heldEdits: (() => void)[] = []

function checkOf(draft: Draft): DraftCheck {
  const account = overLimit ? { overLimit: true } : null
  return {
    draft: structuredClone(draft),
    issues,
    lines: [],
    subTotal: 0,
    priceGroup: null,
    sendable: true,
    account,
  } as unknown as DraftCheck
}

const entry = {
  apiGuid,
  state: 'queued',
  customerGuid: null,
  customerName: 'Harbor Hardware',
  orderGuid: null,
  orderName: null,
  orderStateId: null,
  attempts: 0,
  lastError: null,
  errors: [],
  nextAttemptAt: null,
  queuedAt: '',
  sentAt: null,
  mayBeWithSupplier: false,
  lineCount: 1,
  subTotal: 0,
  totalsDiffer: null,
}

const fake = {
  getDraft: async () => (calls.push('getDraft'), { ok: true, value: checkOf(stored) }),
  listDrafts: async () => ({ ok: true, value: [] }),
  updateDraft: ({ changes }: { changes: Partial<Draft> }) => {
    calls.push('updateDraft')
    return new Promise((resolve) =>
      heldEdits.push(() => (Object.assign(stored, changes), resolve({ ok: true, value: checkOf(stored) }))),
    )
  },
  sendDraft: async () => {
    calls.push('sendDraft')
    return refusal ? { ok: false, error: refusal } : { ok: true, value: entry }
  },
  onEvent: () => () => undefined,
}

let useDraftsStore: typeof import('../../../src/renderer/src/stores/drafts').useDraftsStore
let useSendOrder: typeof import('../../../src/renderer/src/composables/useSendOrder').useSendOrder
let useAction: typeof import('../../../src/renderer/src/action').useAction

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake })
  ;({ useDraftsStore } = await import('../../../src/renderer/src/stores/drafts'))
  ;({ useSendOrder } = await import('../../../src/renderer/src/composables/useSendOrder'))
  ;({ useAction } = await import('../../../src/renderer/src/action'))
})

let scope: EffectScope | undefined

beforeEach(() => {
  issues = []
  overLimit = false
  refusal = null
  calls.length = 0
  heldEdits.length = 0
  stored = {
    id: 7,
    apiGuid,
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
        lineId: 'line-1',
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
afterEach(() => scope?.stop())

/** The order screen's wiring: its queue of changes (as OrderEntryView builds it) and the send. */
async function screen() {
  const drafts = useDraftsStore()
  await drafts.load(7)
  const handedOver: string[] = []
  scope = effectScope()
  const wired = scope.run(() => {
    const { run } = useAction<'change'>({ clearError: 'onSuccess' })
    let queue: Promise<unknown> = Promise.resolve()
    function serial<T>(work: () => Promise<T>): Promise<T | null> {
      const next = queue.then(() => run('change', work))
      queue = next
      return next
    }
    const check = computed(() => drafts.checks[7] ?? null)
    const sending = useSendOrder({
      id: () => 7,
      check,
      serial,
      handOverTyping: () => handedOver.push(`typing before call ${calls.length}`),
    })
    return { serial, sending }
  })!
  return { drafts, handedOver, ...wired }
}

async function turns(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0))
}

describe('sending the order on screen', () => {
  it('sends, keeps the lines as sent, and sends nothing more from a draft already sent', async () => {
    const { sending, handedOver } = await screen()
    await sending.send()
    expect(calls).toEqual(['getDraft', 'sendDraft'])
    expect(handedOver).toEqual(['typing before call 1'])
    expect(sending.sentEntry.value?.apiGuid).toBe(apiGuid)
    expect(sending.sentLines.value.map((line) => line.sku)).toEqual(['KLM-1'])
    expect(sending.sendProblem.value).toBeNull()
    await sending.send()
    expect(calls.filter((call) => call === 'sendDraft')).toHaveLength(1)
  })

  it('asks before sending past the credit limit, and sends on "Send anyway"', async () => {
    overLimit = true
    const { sending } = await screen()
    await sending.send()
    expect(sending.confirmingCredit.value).toBe(true)
    expect(calls).not.toContain('sendDraft')
    sending.sendOverLimit()
    expect(sending.confirmingCredit.value).toBe(false)
    await turns()
    expect(calls).toContain('sendDraft')
    expect(sending.sentEntry.value?.apiGuid).toBe(apiGuid)
  })

  it('waits for the edit made before it: a send never overtakes a change', async () => {
    const { sending, serial, drafts } = await screen()
    const edit = serial(() => drafts.update(7, { poNo: 'PO-1' }))
    const sent = sending.send()
    await turns()
    expect(calls).toEqual(['getDraft', 'updateDraft'])
    heldEdits.shift()!()
    await Promise.all([edit, sent])
    expect(calls).toEqual(['getDraft', 'updateDraft', 'sendDraft'])
  })

  it('tells a refusal by its kind and reads the draft again', async () => {
    const { sending, drafts } = await screen()
    refusal = { code: 'CONFLICT', message: 'Prices changed.' }
    await sending.send()
    expect(sending.sendProblem.value).toEqual({ kind: 'conflict', message: 'Prices changed.' })
    expect(sending.showSendProblem.value).toBe(true)
    expect(calls).toEqual(['getDraft', 'sendDraft', 'getDraft'])
    expect(sending.sentEntry.value).toBeNull()

    refusal = { code: 'NETWORK', message: 'No answer.' }
    await sending.send()
    expect(sending.sendProblem.value?.kind).toBe('other')

    // Problems to fix: shown while the check still finds errors, gone once the rep fixed them.
    refusal = { code: 'INVALID_ARGUMENT', message: 'Fix 1 problem.' }
    issues = [
      {
        lineId: 'line-1',
        field: 'qty',
        severity: 'error',
        message: 'Below the minimum.',
        supplier: false,
      } as unknown as DraftIssue,
    ]
    await sending.send()
    expect(sending.sendProblem.value?.kind).toBe('invalid')
    expect(sending.showSendProblem.value).toBe(true)
    issues = []
    await drafts.load(7)
    expect(sending.showSendProblem.value).toBe(false)

    // No lines at all: "add a line", said until the first line is in.
    stored.lines = []
    await drafts.load(7)
    await sending.send()
    expect(sending.sendProblem.value?.kind).toBe('empty')
    expect(sending.showSendProblem.value).toBe(true)
  })
})
