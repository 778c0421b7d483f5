/** Messages between the bridge and the stand-in; the bridge is a transport, so it only relays. */
import type { SatchelEvent } from '../../src/shared/contract'
import type { Result } from '../../src/shared/result'

export interface CallMessage {
  id: number
  method: string
  argument?: unknown
}

export type ServerMessage = { id: number; result: Result<unknown> } | { event: SatchelEvent }

export const bridgePaths = {
  socket: '/__satchel/socket',
  standIn: '/__satchel/stand-in.js',
  /** Item pictures, `<size>/<itemGuid>` after it: the shell's satchel-picture:// in the app. */
  pictures: '/satchel-picture/',
} as const
