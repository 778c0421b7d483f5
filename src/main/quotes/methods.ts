import type { Implementations } from '../../shared/contract'
import type { UsualItems } from '../usual-items/usual'
import type { LocalData } from '../local/data'
import type { QuoteDesk } from './desk'

export type QuoteMethods = Pick<
  Implementations,
  | 'saveDraftAsQuote'
  | 'listQuotes'
  | 'getQuote'
  | 'updateQuote'
  | 'duplicateQuote'
  | 'deleteQuote'
  | 'convertQuote'
  | 'getUsualItems'
>

export interface QuoteWiring {
  quotes: QuoteDesk
  usual: UsualItems
}

/** When a catalog's items last finished syncing (local ms), or null before the first sync. */
export function catalogSyncedAt(local: LocalData): (catalogGuid: string) => number | null {
  const state = local.syncState
  return (catalogGuid) => state.catalogItems(catalogGuid)?.lastSuccessAt ?? null
}

/** The contract's quote and usual-items methods. */
export function quoteMethods({ quotes, usual }: QuoteWiring): QuoteMethods {
  return {
    saveDraftAsQuote: ({ draftId, keepDraft }) => quotes.saveDraft(draftId, { keepDraft: keepDraft ?? false }),
    listQuotes: (input) =>
      quotes.list({
        ...(input?.customerGuid ? { customerGuid: input.customerGuid } : {}),
        ...(input?.query ? { query: input.query } : {}),
      }),
    getQuote: ({ id }) => quotes.get(id),
    updateQuote: ({ id, changes }) => quotes.update(id, changes),
    duplicateQuote: ({ id }) => quotes.duplicate(id),
    deleteQuote: ({ id }) => {
      quotes.delete(id)
      return null
    },
    convertQuote: ({ id }) => quotes.convert(id),
    getUsualItems: ({ customerGuid, limit }) => ({ items: usual.list(customerGuid, limit) }),
  }
}
