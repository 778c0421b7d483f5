/**
 * Exposes the contract's methods, and nothing else, to the renderer. Runs sandboxed, so it is bundled
 * into one CommonJS file and imports only `electron`, the channel names and the pictures' scheme.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { channelOf, eventChannel, methodNames } from '../shared/channels'
import { pictureScheme } from '../shared/pictures'

const api: Record<string, unknown> = {}
for (const method of methodNames) {
  api[method] = (argument?: unknown) => ipcRenderer.invoke(channelOf(method), argument)
}
api.onEvent = (listener: (event: unknown) => void) => {
  const handler = (_event: IpcRendererEvent, payload: unknown) => listener(payload)
  ipcRenderer.on(eventChannel, handler)
  return () => {
    ipcRenderer.removeListener(eventChannel, handler)
  }
}

// Item pictures come from the shell's protocol, which serves the cache only (src/main/shell/pictures.ts).
api.pictureBase = `${pictureScheme}://`

contextBridge.exposeInMainWorld('satchel', api)
