import { defineStore } from 'pinia'
import { ref, watch } from 'vue'
import type { AmbiguousCode, DraftCheck, DraftSummary, NewCustomerForm, OutboxEntry } from '../../../shared/orders'
import type { AppError } from '../../../shared/result'
import type { CatalogLoading } from '../../../shared/synced'
import { api, unwrap } from '../api'
import { toAppError } from '../errors'
import { draftTyping, type HandedOver } from './draft-typing'
import { useOutboxStore } from './outbox'

type Changes = Parameters<typeof api.updateDraft>[0]['changes']

/**
 * Drafts as the core keeps them. Every change goes to the core at once and the screen shows the
 * DraftCheck it answers: no edit lives only in the renderer, and no price, total or rule is worked
 * out here. What the rep typed waits in `typing` only until the core has echoed it (draft-typing.ts).
 */
export const useDraftsStore = defineStore('drafts', () => {
  const outbox = useOutboxStore()
  const summaries = ref<DraftSummary[]>([])
  const checks = ref<Record<number, DraftCheck>>({})
  /** Orders sent from this window, by apiGuid, kept up to date from the outbox store's listing. */
  const sent = ref<Record<string, OutboxEntry>>({})
  /** Which order a draft became when it was sent from this window: draft id → apiGuid. */
  const sentFromDraft = ref<Record<number, string>>({})
  const listError = ref<AppError | null>(null)
  const { typing, typed, type, drop, handOver, settle, forgetTyping } = draftTyping((id) => checks.value[id]?.draft)

  async function refreshList(): Promise<void> {
    try {
      summaries.value = await unwrap(api.listDrafts())
      listError.value = null
    } catch (error) {
      listError.value = toAppError(error)
    }
  }

  function keep(check: DraftCheck): DraftCheck {
    checks.value = { ...checks.value, [check.draft.id]: check }
    void refreshList()
    return check
  }

  async function load(id: number): Promise<DraftCheck> {
    return keep(await unwrap(api.getDraft({ id })))
  }

  async function create(input: Parameters<typeof api.createDraft>[0]): Promise<DraftCheck> {
    return keep(await unwrap(api.createDraft(input)))
  }

  /** The new-customer form as last typed, kept by the core until it becomes a draft. */
  const keptNewCustomerForm = (): Promise<NewCustomerForm | null> => unwrap(api.getNewCustomerForm())
  /** The call leaves at once, so a flush on the way out of the window still reaches the core. */
  const keepNewCustomerForm = (form: NewCustomerForm | null): Promise<null> => unwrap(api.keepNewCustomerForm({ form }))

  /** `handed`: the typing this change carries (handOver), so its reply settles those fields. */
  async function update(id: number, changes: Changes, handed: HandedOver[] = []): Promise<DraftCheck> {
    return settled(id, handed, () => unwrap(api.updateDraft({ id, changes })))
  }

  async function settled(id: number, handed: HandedOver[], save: () => Promise<DraftCheck>): Promise<DraftCheck> {
    let check: DraftCheck
    try {
      check = await save()
    } catch (error) {
      settle(id, handed, false)
      throw error
    }
    // In the same turn as the check, so no field ever shows the echo of a save it has outgrown.
    keep(check)
    settle(id, handed, true)
    return check
  }

  /**
   * Answers the codes (or guids) the core did not find, the codes more than one item has, the line
   * each one given went into, the new lines started at their minimum, and whether the draft's catalog is still in its first sync.
   */
  async function addLines(
    id: number,
    lines: Parameters<typeof api.addDraftLines>[0]['lines'],
  ): Promise<{
    unknown: string[]
    ambiguous: AmbiguousCode[]
    lineIds: (string | null)[]
    startedAtMinimum: string[]
    catalogLoading: CatalogLoading | null
    families: { code: string; guid: string; title: string }[]
    notOffered: { code: string; sku: string; reason: string }[]
    newSinceSync: string[]
    notOnLaptop: { syncedAt: string | null; serviceAsked: boolean } | null
  }> {
    const answer = await unwrap(api.addDraftLines({ id, lines }))
    const { check, unknown, ambiguous, lineIds, startedAtMinimum, catalogLoading, families, notOffered } = answer
    keep(check)
    return {
      unknown,
      ambiguous,
      lineIds,
      startedAtMinimum,
      catalogLoading: catalogLoading ?? null,
      families: families ?? [],
      notOffered: notOffered ?? [],
      newSinceSync: answer.newSinceSync ?? [],
      notOnLaptop: answer.notOnLaptop ?? null,
    }
  }

  async function updateLine(
    id: number,
    lineId: string,
    change: { qty?: number; note?: string },
    handed: HandedOver[] = [],
  ): Promise<DraftCheck> {
    return settled(id, handed, () => unwrap(api.updateDraftLine({ id, lineId, ...change })))
  }

  async function removeLine(id: number, lineId: string): Promise<DraftCheck> {
    return keep(await unwrap(api.removeDraftLine({ id, lineId })))
  }

  /** The customer's open draft in the catalog, or a new one: where an add from the catalog goes. */
  async function openFor(customerGuid: string, catalogGuid: string): Promise<{ check: DraftCheck; created: boolean }> {
    const found = await unwrap(api.openDraftFor({ customerGuid, catalogGuid }))
    keep(found.check)
    return found
  }

  async function restoreLine(id: number, lineId: string): Promise<DraftCheck> {
    return keep(await unwrap(api.restoreDraftLine({ id, lineId })))
  }

  async function acceptPrices(id: number): Promise<DraftCheck> {
    return keep(await unwrap(api.acceptDraftPrices({ id })))
  }

  async function remove(id: number): Promise<void> {
    await unwrap(api.deleteDraft({ id }))
    await forget(id)
  }

  /** A draft the core no longer holds (deleted, or moved into a quote) leaves the lists here too. */
  async function forget(id: number): Promise<void> {
    const { [id]: _gone, ...rest } = checks.value
    checks.value = rest
    forgetTyping(id)
    await refreshList()
  }

  async function send(id: number): Promise<OutboxEntry> {
    const entry = await unwrap(api.sendDraft({ id }))
    sent.value = { ...sent.value, [entry.apiGuid]: entry }
    outbox.follow(entry.apiGuid)
    sentFromDraft.value = { ...sentFromDraft.value, [id]: entry.apiGuid }
    const { [id]: _gone, ...rest } = checks.value
    checks.value = rest
    forgetTyping(id)
    void refreshList()
    return entry
  }

  /** A rejected order back as a draft (same apiGuid and number, so the supplier never gets it twice). */
  async function reopen(apiGuid: string): Promise<DraftCheck> {
    const check = await unwrap(api.editOutboxEntry({ apiGuid }))
    const { [apiGuid]: _gone, ...rest } = sent.value
    sent.value = rest
    outbox.unfollow(apiGuid)
    // The entry left the outbox: a screen listing it shows it gone without waiting for the next change.
    void outbox.refresh().catch(() => undefined)
    // The draft is back under its own number: that number shows the draft again, not the sent panel.
    sentFromDraft.value = Object.fromEntries(Object.entries(sentFromDraft.value).filter(([, key]) => key !== apiGuid))
    return keep(check)
  }

  // Each listing the outbox store makes brings the orders sent from here up to date; an entry it does
  // not list keeps the state last known. Synchronously, so a listing applies the moment it lands and
  // cannot overwrite an answer from sendDraft that came after it.
  watch(
    () => outbox.entries,
    (entries) => {
      if (Object.keys(sent.value).length === 0) return
      const next = { ...sent.value }
      for (const entry of entries) if (entry.apiGuid in next) next[entry.apiGuid] = entry
      sent.value = next
    },
    { flush: 'sync' },
  )

  api.onEvent((event) => {
    if (event.name === 'syncFinished') {
      void refreshList()
      // A draft sent since it was opened no longer exists; refreshList above shows what remains.
      for (const id of Object.keys(checks.value)) void load(Number(id)).catch(() => undefined)
    }
  })

  return {
    summaries,
    checks,
    sent,
    sentFromDraft,
    listError,
    typing,
    refreshList,
    load,
    create,
    forget,
    keptNewCustomerForm,
    keepNewCustomerForm,
    update,
    addLines,
    updateLine,
    removeLine,
    restoreLine,
    openFor,
    acceptPrices,
    remove,
    send,
    reopen,
    typed,
    type,
    dropTyped: drop,
    handOver,
  }
})
