import { EventEmitter } from 'node:events'
import { vi } from 'vitest'
import type { OutboxActivity } from '../../../../src/main/orders'
import type { Logger } from '../../../../src/main/ports'

/** An outbox whose sending state the test flips by hand; waitUntilIdle resolves when it goes idle. */
export interface ControllableOutbox extends OutboxActivity {
  unsent: number
  waitCalls: number[]
  startSending(): void
  finishSending(): void
}

export function controllableOutbox(unsent = 0): ControllableOutbox {
  let sending = false
  let waiters: ((idle: boolean) => void)[] = []
  const outbox: ControllableOutbox = {
    unsent,
    waitCalls: [] as number[],
    isSending: () => sending,
    unsentCount: () => outbox.unsent,
    waitUntilIdle(timeoutMs: number): Promise<boolean> {
      outbox.waitCalls.push(timeoutMs)
      if (!sending) return Promise.resolve(true)
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== settle)
          resolve(false)
        }, timeoutMs)
        const settle = (idle: boolean) => {
          clearTimeout(timer)
          resolve(idle)
        }
        waiters.push(settle)
      })
    },
    startSending() {
      sending = true
    },
    finishSending() {
      sending = false
      const current = waiters
      waiters = []
      for (const waiter of current) waiter(true)
    },
  }
  return outbox
}

export function recordingLogger() {
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = []
  const make = (): Logger => ({
    debug: (message, fields) => void entries.push({ level: 'debug', message, ...(fields ? { fields } : {}) }),
    info: (message, fields) => void entries.push({ level: 'info', message, ...(fields ? { fields } : {}) }),
    warn: (message, fields) => void entries.push({ level: 'warn', message, ...(fields ? { fields } : {}) }),
    error: (message, fields) => void entries.push({ level: 'error', message, ...(fields ? { fields } : {}) }),
    child: () => make(),
  })
  return { logger: make(), entries }
}

/**
 * electron-updater's AppUpdater as the controller sees it: an event emitter whose property writes
 * are recorded, so a test can prove that nothing turns the staged rollout off.
 */
export function fakeAppUpdater() {
  const emitter = new EventEmitter()
  const writes: [string, unknown][] = []
  const target = {
    autoDownload: false,
    autoInstallOnAppQuit: false,
    allowPrerelease: true,
    logger: null as unknown,
    on: (event: string, listener: (...args: never[]) => void) =>
      emitter.on(event, listener as (...args: unknown[]) => void),
    checkForUpdates: vi.fn(async () => null as unknown),
    quitAndInstall: vi.fn(),
    emit: (event: string, ...args: unknown[]) => emitter.emit(event, ...args),
  }
  const updater = new Proxy(target, {
    set(object, property, value) {
      writes.push([String(property), value])
      return Reflect.set(object, property, value)
    },
  })
  return { updater, writes }
}
