import { ref } from 'vue'
import type { Draft } from '../../../shared/orders'

/** A field the rep types into: the order's own, or one line's quantity or note (by its lineId). */
export type TypedField = 'poNo' | 'note' | 'shippingInstructions' | `qty:${string}` | `lineNote:${string}`

/** The rep's latest value of a field, the number of that edit, and of the last edit handed to the core. */
export interface Typing {
  value: string
  edit: number
  handedOver: number
}

/** An edit on its way to the core, to be named again when the core answers the save that carries it. */
export interface HandedOver {
  field: TypedField
  edit: number
}

/** The core's value of a field, as the field shows it; undefined for a line the draft no longer has. */
function coreValue(draft: Draft, field: TypedField): string | undefined {
  if (field === 'poNo' || field === 'note' || field === 'shippingInstructions') return draft[field]
  const [kind, lineId] = field.split(':') as ['qty' | 'lineNote', string]
  const line = draft.lines.find((l) => l.lineId === lineId)
  if (!line) return undefined
  return kind === 'qty' ? String(line.qty) : line.note
}

/**
 * What the rep typed into a draft that the core has not echoed yet. Saves answer slower than keys
 * come (a first sync keeps the core busy), so a save's reply, or any reload of the draft, can carry a
 * field's older value: a field shows the core's value again only once the core has answered the save
 * that carried the rep's last edit of it. Until then it shows what was typed.
 */
export function draftTyping(coreDraft: (id: number) => Draft | undefined) {
  const typing = ref<Record<number, Record<string, Typing>>>({})
  let edits = 0

  function typed(id: number, field: TypedField): string | undefined {
    return typing.value[id]?.[field]?.value
  }

  function type(id: number, field: TypedField, value: string): void {
    const handedOver = typing.value[id]?.[field]?.handedOver ?? 0
    typing.value = { ...typing.value, [id]: { ...typing.value[id], [field]: { value, edit: ++edits, handedOver } } }
  }

  function drop(id: number, field: TypedField): void {
    const { [field]: _gone, ...rest } = typing.value[id] ?? {}
    typing.value = { ...typing.value, [id]: rest }
  }

  /**
   * The field's latest edit, marked as on its way, when the core has not been given it yet. An edit
   * back to the core's value with nothing else on the way needs no save.
   */
  function handOver(id: number, field: TypedField): { value: string; handed: HandedOver } | null {
    const current = typing.value[id]?.[field]
    if (!current || current.handedOver === current.edit) return null
    const draft = coreDraft(id)
    if (current.handedOver === 0 && draft && coreValue(draft, field) === current.value) {
      drop(id, field)
      return null
    }
    current.handedOver = current.edit
    return { value: current.value, handed: { field, edit: current.edit } }
  }

  /**
   * The core answered the save that carried `handed`: a field typed in since keeps what was typed;
   * the others show the core's value. A refused save leaves the typing on screen, to go again.
   */
  function settle(id: number, handed: HandedOver[], saved: boolean): void {
    for (const { field, edit } of handed) {
      const current = typing.value[id]?.[field]
      if (!current) continue
      if (saved && current.edit === edit) drop(id, field)
      else if (!saved && current.handedOver === edit) current.handedOver = 0
    }
  }

  /** A draft the core no longer holds as a draft takes its typing with it. */
  function forgetTyping(id: number): void {
    const { [id]: _gone, ...rest } = typing.value
    typing.value = rest
  }

  return { typing, typed, type, drop, handOver, settle, forgetTyping }
}
