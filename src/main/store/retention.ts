/**
 * Which synced rows must outlive the service's listing. A full listing removes local rows the
 * service no longer lists, but a draft or an outbox entry may still name a customer or catalog item
 * the service dropped: deleting it would leave the rep with an order that cannot be shown or fixed.
 *
 * The drafts and outbox register a provider here. Before removing rows, sync asks every provider which
 * of the candidate guids it still needs; those rows stay, flagged (unlisted_at, or their tombstone's
 * deleted_at), out of every live view but readable by guid.
 */
export type RetainableKind = 'catalog' | 'priceGroup' | 'catalogItem' | 'customer'

/** Answers which of `guids` (at most a few hundred at a time) are still needed. */
export type RetentionProvider = (kind: RetainableKind, guids: readonly string[]) => Iterable<string>

export class Retention {
  private readonly providers = new Set<RetentionProvider>()

  /** Returns the function that unregisters the provider. */
  register(provider: RetentionProvider): () => void {
    this.providers.add(provider)
    return () => {
      this.providers.delete(provider)
    }
  }

  retained(kind: RetainableKind, guids: readonly string[]): Set<string> {
    const kept = new Set<string>()
    if (guids.length === 0) return kept
    for (const provider of this.providers) {
      for (const guid of provider(kind, guids)) kept.add(guid)
    }
    return kept
  }
}
