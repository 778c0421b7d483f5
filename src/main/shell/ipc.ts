import type { IpcMainInvokeEvent, WebContents } from 'electron'
import { channelOf, eventChannel, methodNames } from '../../shared/channels'
import { fail } from '../../shared/result'
import type { HandlerTable } from '../core/handlers'
import type { EventStream } from '../events'

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void
  removeHandler(channel: string): void
}

/**
 * Only the app's own top-level frame may call the core: a compromised iframe or a page that was
 * navigated elsewhere must not reach the database.
 */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>, isAppUrl: (url: string) => boolean): boolean {
  const frame = event.senderFrame
  if (!frame) return false
  if (frame.parent !== null) return false
  return isAppUrl(frame.url)
}

export function registerIpc(ipcMain: IpcMainLike, handlers: HandlerTable, isAppUrl: (url: string) => boolean): () => void {
  for (const method of methodNames) {
    ipcMain.handle(channelOf(method), async (event, argument) => {
      if (!isTrustedSender(event, isAppUrl)) return fail('FORBIDDEN_SENDER', 'Calls are accepted only from Satchel’s own window.')
      return handlers[method](argument)
    })
  }
  return () => {
    for (const method of methodNames) ipcMain.removeHandler(channelOf(method))
  }
}

export function forwardEvents(events: EventStream, target: () => WebContents | undefined): () => void {
  return events.subscribe((event) => {
    const contents = target()
    if (contents && !contents.isDestroyed()) contents.send(eventChannel, event)
  })
}
