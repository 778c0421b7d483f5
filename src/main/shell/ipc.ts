import type { IpcMainInvokeEvent, WebContents } from 'electron'
import { channelOf, eventChannel, methodNames } from '../../shared/channels'
import { fail } from '../../shared/result'
import type { HandlerTable } from '../core/handlers'
import type { EventStream } from '../events'
import { silentLogger, type Logger } from '../ports'
import { newRequestId } from './logging'

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void
  removeHandler(channel: string): void
}

/**
 * Only the app's own top-level frame may call the core: a compromised iframe or a page that was
 * navigated elsewhere must not reach the database. (Security rule; see security.ts and docs/security.md.)
 */
function isTrustedSender(
  event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>,
  isAppUrl: (url: string) => boolean,
): boolean {
  const frame = event.senderFrame
  if (!frame) return false
  if (frame.parent !== null) return false
  return isAppUrl(frame.url)
}

/**
 * One invoke handler per contract method. The sender is checked here; the argument is validated by
 * the handler table (createHandlerTable) before any implementation runs. Each call gets a request id
 * in the log, so a rep's "it failed at 10:42" can be followed through main.
 */
export function registerIpc(
  ipcMain: IpcMainLike,
  handlers: HandlerTable,
  isAppUrl: (url: string) => boolean,
  logger: Logger = silentLogger,
): () => void {
  for (const method of methodNames) {
    ipcMain.handle(channelOf(method), async (event, argument) => {
      const requestId = newRequestId()
      if (!isTrustedSender(event, isAppUrl)) {
        logger.warn('ipc call refused: not from the app window', {
          requestId,
          method,
          frameUrl: event.senderFrame?.url ?? null,
        })
        return fail('FORBIDDEN_SENDER', 'Calls are accepted only from Satchel’s own window.')
      }
      const started = performance.now()
      const result = await handlers[method](argument)
      const ms = Math.round(performance.now() - started)
      if (result.ok) logger.debug('ipc call', { requestId, method, ms })
      else logger.info('ipc call failed', { requestId, method, ms, code: result.error.code })
      return result
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
