/**
 * Quitting without losing an order or corrupting the database: ask first when orders are still in
 * the outbox, wait (bounded) for an order request on the wire to get its answer, then close the
 * database cleanly. The decisions live here, free of Electron's objects, so they are unit-tested;
 * index.ts connects them to app 'before-quit' and the window's 'close'.
 */
import type { Logger } from '../ports'
import type { OutboxActivity } from '../orders'

export interface QuitControllerOptions {
  outbox: OutboxActivity
  /** Asks the rep whether to quit with `unsent` orders still queued; true means quit. */
  confirmQuit: (unsent: number) => Promise<boolean>
  /** Asks whether to sign out with `unsent` orders still queued; true means sign out. */
  /** Closes the core (database). Called once. */
  closeCore: () => Promise<void>
  /** Last words before the database closes, e.g. saving the window state; told whether the outbox went idle. */
  beforeClose?: (outcome: { outboxIdle: boolean }) => void
  logger: Logger
  /**
   * How long quitting waits for an order request in flight. Long enough for a slow mobile answer,
   * short enough that a rep closing the lid does not wait on a dead connection. An order cut off
   * mid-request is not lost: it stays in the outbox and is sent again with the same api_guid.
   */
  inFlightTimeoutMs?: number
}

interface QuitEvent {
  preventDefault(): void
}

export interface QuitController {
  /** For app 'before-quit'. Holds the quit until the rep agreed and the core is closed, then calls `quit`. */
  handleBeforeQuit(event: QuitEvent, quit: () => void): void
  /**
   * For the main window's 'close' when closing it quits the app (Windows, Linux): asks while the
   * window is still on screen, instead of after it vanished.
   */
  handleWindowClose(event: QuitEvent, quit: () => void): void
  /** Waits for the outbox and closes the core without asking: the update restart path. */
  shutdown(): Promise<{ outboxIdle: boolean }>
  /** True once the core is closed and the app may exit. */
  isShutDown(): boolean
}

export function createQuitController(options: QuitControllerOptions): QuitController {
  const timeoutMs = options.inFlightTimeoutMs ?? 15_000
  let agreed = false
  let asking: Promise<boolean> | undefined
  let shuttingDown: Promise<{ outboxIdle: boolean }> | undefined
  let shutDown = false

  /** One dialog at a time: a second Cmd+Q while the first dialog is open waits for the same answer. */
  function agreeToQuit(): Promise<boolean> {
    if (agreed) return Promise.resolve(true)
    const unsent = options.outbox.unsentCount()
    if (unsent === 0) return Promise.resolve(true)
    asking ??= options
      .confirmQuit(unsent)
      .catch((error: unknown) => {
        options.logger.error('the quit question failed; quitting anyway', {
          error: error instanceof Error ? error.message : String(error),
        })
        return true
      })
      .then((answer) => {
        asking = undefined
        if (answer) agreed = true
        return answer
      })
    return asking
  }

  function shutdown(): Promise<{ outboxIdle: boolean }> {
    shuttingDown ??= (async () => {
      let outboxIdle = true
      if (options.outbox.isSending()) {
        options.logger.info('waiting for the order request in flight before quitting', { timeoutMs })
        outboxIdle = await options.outbox.waitUntilIdle(timeoutMs).catch(() => false)
        if (!outboxIdle)
          options.logger.warn('quitting with an order request still in flight; it will be sent again on next start', {
            timeoutMs,
          })
      }
      try {
        options.beforeClose?.({ outboxIdle })
      } catch (error) {
        options.logger.error('saving state before quit failed', {
          error: error instanceof Error ? error.message : String(error),
        })
      }
      try {
        await options.closeCore()
      } catch (error) {
        options.logger.error('closing the database failed', {
          error: error instanceof Error ? error.message : String(error),
        })
      }
      shutDown = true
      return { outboxIdle }
    })()
    return shuttingDown
  }

  return {
    handleBeforeQuit(event, quit) {
      if (shutDown) return
      event.preventDefault()
      void agreeToQuit().then(async (answer) => {
        if (!answer) return
        await shutdown()
        quit()
      })
    },
    handleWindowClose(event, quit) {
      if (agreed || shutDown || options.outbox.unsentCount() === 0) return
      event.preventDefault()
      void agreeToQuit().then((answer) => {
        if (answer) quit()
      })
    },
    shutdown,
    isShutDown: () => shutDown,
  }
}
