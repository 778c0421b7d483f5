import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SatchelEvent } from '../../../src/shared/contract'
import type { OutboxEntry, OutboxState, OutboxSummary } from '../../../src/shared/orders'

/**
 * The outbox is listed once per outboxChanged, however many parts of the window show it: the Outbox
 * screen's entries and the order screen's "sent" panel read the same listing. Counted against a
 * fake core behind window.satchel, which is what api.ts reads.
 */
const apiGuid = '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f'
const summary: OutboxSummary = { queued: 0, sending: 0, retrying: 0, needsAttention: 0, sent: 1, pausedReason: null }

function entry(state: OutboxState): OutboxEntry {
  return {
    apiGuid,
    state,
    customerGuid: 'customer-1',
    customerName: 'Harbor Hardware',
    orderGuid: state === 'sent' ? 'order-1' : null,
    orderName: state === 'sent' ? 'SO-1001' : null,
    orderStateId: null,
    attempts: state === 'sent' ? 1 : 0,
    lastError: null,
    errors: [],
    nextAttemptAt: null,
    queuedAt: '2026-11-25T09:00:00.000Z',
    sentAt: state === 'sent' ? '2026-11-25T09:00:01.000Z' : null,
    mayBeWithSupplier: false,
    lineCount: 1,
    subTotal: 12.5,
    totalsDiffer: null,
  }
}

const calls: string[] = []
let listeners: ((event: SatchelEvent) => void)[] = []
/** What the fake core's outbox holds now. */
let outboxNow: OutboxEntry[] = []

const fake = {
  listOutbox: async () => (calls.push('listOutbox'), { ok: true, value: outboxNow }),
  getOutboxSummary: async () => (calls.push('getOutboxSummary'), { ok: true, value: summary }),
  sendDraft: async () => {
    calls.push('sendDraft')
    outboxNow = [entry('queued')]
    return { ok: true, value: entry('queued') }
  },
  listDrafts: async () => (calls.push('listDrafts'), { ok: true, value: [] }),
  onEvent(listener: (event: SatchelEvent) => void) {
    listeners.push(listener)
    return () => (listeners = listeners.filter((other) => other !== listener))
  },
}

let stores: {
  useOutboxStore: typeof import('../../../src/renderer/src/stores/outbox').useOutboxStore
  useDraftsStore: typeof import('../../../src/renderer/src/stores/drafts').useDraftsStore
}

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake })
  const [outbox, drafts] = await Promise.all([
    import('../../../src/renderer/src/stores/outbox'),
    import('../../../src/renderer/src/stores/drafts'),
  ])
  stores = { useOutboxStore: outbox.useOutboxStore, useDraftsStore: drafts.useDraftsStore }
})

beforeEach(() => {
  listeners = []
  outboxNow = []
  calls.length = 0
  setActivePinia(createPinia())
})

/** Lets every promise the stores started settle: the fake answers at once, so a few turns do. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 0))
}

function outboxChanged(): void {
  for (const listener of listeners) listener({ name: 'outboxChanged', payload: summary })
}

const listings = () => calls.filter((call) => call === 'listOutbox').length

describe('one outbox listing per outboxChanged', () => {
  it('serves the Outbox screen and the order sent from this window with one listing', async () => {
    const outbox = stores.useOutboxStore()
    const drafts = stores.useDraftsStore()
    await outbox.loadEntries()
    await drafts.send(7)
    await settle()
    calls.length = 0

    outboxNow = [entry('sent')]
    outboxChanged()
    await settle()

    expect(listings()).toBe(1)
    expect(outbox.entries.map((listed) => listed.state)).toEqual(['sent'])
    expect(drafts.sent[apiGuid]?.state).toBe('sent')
    expect(drafts.sent[apiGuid]?.orderName).toBe('SO-1001')
  })

  it('lists once per event, event after event', async () => {
    const outbox = stores.useOutboxStore()
    const drafts = stores.useDraftsStore()
    await outbox.loadEntries()
    await drafts.send(7)
    await settle()
    calls.length = 0

    for (let event = 0; event < 3; event++) {
      outboxChanged()
      await settle()
    }

    expect(listings()).toBe(3)
  })

  it('keeps the sent panel up to date with no Outbox screen opened', async () => {
    const outbox = stores.useOutboxStore()
    const drafts = stores.useDraftsStore()
    await drafts.send(7)
    await settle()
    calls.length = 0

    outboxNow = [entry('sent')]
    outboxChanged()
    await settle()

    expect(listings()).toBe(1)
    expect(drafts.sent[apiGuid]?.state).toBe('sent')
    expect(outbox.summary).toEqual(summary)
  })

  it('does not list when nothing on screen shows the entries', async () => {
    const outbox = stores.useOutboxStore()
    stores.useDraftsStore()
    outboxChanged()
    await settle()

    expect(listings()).toBe(0)
    expect(outbox.summary).toEqual(summary)
  })
})
