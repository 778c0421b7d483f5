import type { EventName } from '../shared/channels'
import type { EventPayload, SatchelEvent } from '../shared/contract'
import type { EventSink } from './ports'

export interface EventStream {
  subscribe(listener: (event: SatchelEvent) => void): () => void
}

/** Fans core events out to every transport (Electron window, bridge sockets, tests). */
export class EventHub implements EventSink, EventStream {
  private readonly listeners = new Set<(event: SatchelEvent) => void>()

  constructor(private readonly forward?: EventSink) {}

  emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
    const event = { name, payload } as SatchelEvent
    for (const listener of this.listeners) listener(event)
    this.forward?.emit(name, payload)
  }

  subscribe(listener: (event: SatchelEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
