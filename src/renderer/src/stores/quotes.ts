import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { Quote, QuoteSummary } from '../../../shared/quotes'
import { api, unwrap } from '../api'
import { useDraftsStore } from './drafts'
import { useNoticesStore } from './notices'

type QuoteChanges = Parameters<typeof api.updateQuote>[0]['changes']

/** Quotes saved on this laptop: the list (searched, per customer or all), one quote, and turning one into a draft. */
export const useQuotesStore = defineStore('quotes', () => {
  const notices = useNoticesStore()
  const drafts = useDraftsStore()
  const summaries = ref<QuoteSummary[]>([])
  let generation = 0

  async function list(filter: { customerGuid?: string; query?: string } = {}): Promise<void> {
    const mine = ++generation
    const result = await unwrap(
      api.listQuotes({
        ...(filter.customerGuid ? { customerGuid: filter.customerGuid } : {}),
        ...(filter.query?.trim() ? { query: filter.query.trim() } : {}),
      }),
    )
    if (mine === generation) summaries.value = result
  }

  /** Saves still on their way to the core, by quote: a quote opened again is read after them, not before. */
  const saving = new Map<number, Promise<unknown>>()

  async function get(id: number): Promise<Quote> {
    await saving.get(id)?.catch(() => undefined)
    return unwrap(api.getQuote({ id }))
  }
  /** The draft becomes the quote (it is no longer a draft) unless the rep keeps it too. */
  async function saveDraft(draftId: number, { keepDraft }: { keepDraft: boolean }): Promise<Quote> {
    const quote = await unwrap(api.saveDraftAsQuote({ draftId, keepDraft }))
    if (!keepDraft) void drafts.forget(draftId)
    return quote
  }
  /** The call leaves at once (a screen flushing on its way out or on reload has no later turn to wait for). */
  function update(id: number, changes: QuoteChanges): Promise<Quote> {
    const done = unwrap(api.updateQuote({ id, changes }))
    saving.set(id, done)
    const forget = () => {
      if (saving.get(id) === done) saving.delete(id)
    }
    done.then(forget, forget)
    return done
  }
  const duplicate = (id: number): Promise<Quote> => unwrap(api.duplicateQuote({ id }))
  async function remove(id: number): Promise<void> {
    await unwrap(api.deleteQuote({ id }))
    summaries.value = summaries.value.filter((quote) => quote.id !== id)
  }

  /**
   * A draft from the quote at today's prices. What moved since the quote is said above the draft,
   * line by line, so the rep can tell the customer before sending. Answers the draft's id.
   */
  async function convert(quote: Quote): Promise<number> {
    const { check, changes } = await unwrap(api.convertQuote({ id: quote.id }))
    const draftId = check.draft.id
    const one = changes.length === 1
    notices.push(
      changes.length === 0
        ? {
            tone: 'info',
            title: `Quote ${quote.number} became this draft; every price is as quoted.`,
            lines: [],
            path: `/drafts/${draftId}`,
          }
        : {
            tone: 'warning',
            title: `${changes.length} ${one ? 'line of' : 'lines of'} quote ${quote.number} changed since it was quoted:`,
            lines: changes.map((change) => `${change.sku} — ${change.name}: ${change.message}`),
            path: `/drafts/${draftId}`,
          },
    )
    return draftId
  }

  return { summaries, list, get, saveDraft, update, duplicate, remove, convert }
})
