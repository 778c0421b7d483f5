import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQuitController } from '../../../../src/main/shell/lifecycle'
import { controllableOutbox, recordingLogger } from './fakes'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function setup(unsent = 0, answer = true) {
  const outbox = controllableOutbox(unsent)
  const closeCore = vi.fn(async () => undefined)
  const confirmQuit = vi.fn(async () => answer)
  const beforeClose = vi.fn()
  const { logger, entries } = recordingLogger()
  const controller = createQuitController({
    outbox,
    confirmQuit,
    closeCore,
    beforeClose,
    logger,
    inFlightTimeoutMs: 10_000,
  })
  return { outbox, closeCore, confirmQuit, beforeClose, controller, entries }
}

const quitEvent = () => ({ preventDefault: vi.fn() })

describe('quitting', () => {
  it('closes the database once, then lets the quit through without asking when nothing is unsent', async () => {
    const { controller, closeCore, confirmQuit } = setup()
    const quit = vi.fn()
    const first = quitEvent()
    controller.handleBeforeQuit(first, quit)
    expect(first.preventDefault).toHaveBeenCalled()
    await vi.runAllTimersAsync()
    expect(closeCore).toHaveBeenCalledTimes(1)
    expect(quit).toHaveBeenCalledTimes(1)
    expect(confirmQuit).not.toHaveBeenCalled()
    const second = quitEvent()
    controller.handleBeforeQuit(second, quit)
    expect(second.preventDefault).not.toHaveBeenCalled()
    expect(closeCore).toHaveBeenCalledTimes(1)
  })

  it('waits for an order request in flight before closing the database', async () => {
    const { controller, closeCore, outbox } = setup()
    outbox.startSending()
    const quit = vi.fn()
    controller.handleBeforeQuit(quitEvent(), quit)
    await vi.advanceTimersByTimeAsync(3_000)
    expect(closeCore).not.toHaveBeenCalled()
    outbox.finishSending()
    await vi.runAllTimersAsync()
    expect(closeCore).toHaveBeenCalledTimes(1)
    expect(quit).toHaveBeenCalled()
  })

  it('waits only so long for a request that never answers', async () => {
    const { controller, closeCore, outbox, beforeClose, entries } = setup()
    outbox.startSending()
    const quit = vi.fn()
    controller.handleBeforeQuit(quitEvent(), quit)
    await vi.advanceTimersByTimeAsync(9_999)
    expect(closeCore).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    await vi.runAllTimersAsync()
    expect(outbox.waitCalls).toEqual([10_000])
    expect(closeCore).toHaveBeenCalledTimes(1)
    expect(quit).toHaveBeenCalled()
    expect(beforeClose).toHaveBeenCalledWith({ outboxIdle: false })
    expect(entries.some((entry) => entry.level === 'warn' && entry.message.includes('still in flight'))).toBe(true)
  })

  it('asks first when orders are unsent, and stays open when the rep cancels', async () => {
    const { controller, closeCore, confirmQuit } = setup(3, false)
    const quit = vi.fn()
    const event = quitEvent()
    controller.handleBeforeQuit(event, quit)
    await vi.runAllTimersAsync()
    expect(event.preventDefault).toHaveBeenCalled()
    expect(confirmQuit).toHaveBeenCalledWith(3)
    expect(closeCore).not.toHaveBeenCalled()
    expect(quit).not.toHaveBeenCalled()
    expect(controller.isShutDown()).toBe(false)
  })

  it('asks once even when quit is pressed twice, and quits when the rep agrees', async () => {
    const { controller, closeCore, confirmQuit } = setup(1, true)
    const quit = vi.fn()
    controller.handleBeforeQuit(quitEvent(), quit)
    controller.handleBeforeQuit(quitEvent(), quit)
    await vi.runAllTimersAsync()
    expect(confirmQuit).toHaveBeenCalledTimes(1)
    expect(closeCore).toHaveBeenCalledTimes(1)
    expect(controller.isShutDown()).toBe(true)
  })

  it('asks while the window is still open when closing it would quit', async () => {
    const { controller, confirmQuit } = setup(2, true)
    const quit = vi.fn()
    const close = quitEvent()
    controller.handleWindowClose(close, quit)
    expect(close.preventDefault).toHaveBeenCalled()
    await vi.runAllTimersAsync()
    expect(confirmQuit).toHaveBeenCalledWith(2)
    expect(quit).toHaveBeenCalled()
    // The quit that follows does not ask again.
    controller.handleBeforeQuit(quitEvent(), vi.fn())
    await vi.runAllTimersAsync()
    expect(confirmQuit).toHaveBeenCalledTimes(1)
  })

  it('does not hold the window when nothing is unsent', () => {
    const { controller } = setup(0)
    const close = quitEvent()
    controller.handleWindowClose(close, vi.fn())
    expect(close.preventDefault).not.toHaveBeenCalled()
  })

  it('still quits when closing the database fails', async () => {
    const { controller, closeCore, entries } = setup()
    closeCore.mockRejectedValueOnce(new Error('disk gone'))
    const quit = vi.fn()
    controller.handleBeforeQuit(quitEvent(), quit)
    await vi.runAllTimersAsync()
    expect(quit).toHaveBeenCalled()
    expect(entries.some((entry) => entry.level === 'error')).toBe(true)
  })
})
