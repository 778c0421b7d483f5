import { CoreError } from '../errors'
import type { SyncGate } from '../ports'

interface Waiter {
  profileId: string
  admit: (leave: () => void) => void
}

/**
 * The turn to sync, shared by every profile's scheduler: one sync at a time across profiles (two
 * would split one laptop's bandwidth and disk between suppliers), and when several wait, the profile
 * on screen goes first; the others keep the order they asked in.
 */
export class SyncTurns {
  private holder: string | null = null
  private readonly waiting: Waiter[] = []
  private first: string | null = null

  /** The profile whose syncs go ahead of the others'. */
  putFirst(profileId: string): void {
    this.first = profileId
  }

  /** Who is syncing now, for tests and the log. */
  current(): string | null {
    return this.holder
  }

  gateFor(profileId: string): SyncGate {
    return {
      enter: (signal) =>
        new Promise((resolve, reject) => {
          if (signal.aborted) return reject(new CoreError('CANCELLED', 'The sync was cancelled.'))
          const waiter: Waiter = {
            profileId,
            admit: (leave) => {
              signal.removeEventListener('abort', onAbort)
              resolve(leave)
            },
          }
          const onAbort = () => {
            const index = this.waiting.indexOf(waiter)
            if (index >= 0) this.waiting.splice(index, 1)
            reject(new CoreError('CANCELLED', 'The sync was cancelled.'))
          }
          signal.addEventListener('abort', onAbort, { once: true })
          this.waiting.push(waiter)
          this.admitNext()
        }),
    }
  }

  private admitNext(): void {
    if (this.holder !== null || this.waiting.length === 0) return
    const preferred = this.waiting.findIndex((waiter) => waiter.profileId === this.first)
    const [next] = this.waiting.splice(preferred >= 0 ? preferred : 0, 1)
    if (!next) return
    this.holder = next.profileId
    let left = false
    next.admit(() => {
      if (left) return
      left = true
      this.holder = null
      this.admitNext()
    })
  }
}
