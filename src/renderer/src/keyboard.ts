/**
 * Keyboard shortcuts. The frame owns the global ones (sections, search, sync); a screen adds its own
 * with `useShortcut` while it is mounted, and the most recently mounted handler for a combo wins.
 *
 * Combos are written "Mod+N" (Ctrl, or ⌘ on a Mac), "Alt+1", "Mod+Shift+S", "/". Keys come from
 * KeyboardEvent.code where it has one, so Alt+1 works on a Mac keyboard too.
 */
import { onBeforeUnmount, onMounted, ref, type Ref } from 'vue'
import { isMac } from './format'

type Handler = (event: KeyboardEvent) => void
const registry = new Map<string, Handler[]>()

function keyOf(event: KeyboardEvent): string {
  const code = event.code
  if (/^Key[A-Z]$/.test(code)) return code.slice(3)
  if (/^Digit[0-9]$/.test(code)) return code.slice(5)
  if (code === 'Slash') return '/'
  return event.key.length === 1 ? event.key.toUpperCase() : event.key
}

export function comboOf(event: KeyboardEvent): string {
  const parts: string[] = []
  if (isMac ? event.metaKey : event.ctrlKey) parts.push('Mod')
  if (event.altKey) parts.push('Alt')
  if (event.shiftKey && !(event.key === '/' || event.key === '?')) parts.push('Shift')
  parts.push(keyOf(event))
  return parts.join('+')
}

/** The aria-keyshortcuts spelling of a combo ("Mod+N" → "Control+N"). */
export function ariaShortcut(combo: string): string {
  return combo.replace('Mod', isMac ? 'Meta' : 'Control')
}

/** The spelling shown in tooltips ("Mod+N" → "Ctrl+N" or "⌘N"). */
export function shortcutLabel(combo: string): string {
  return isMac ? combo.replace('Mod+', '⌘').replace('Alt+', '⌥').replace('Shift+', '⇧') : combo.replace('Mod', 'Ctrl')
}

export function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)
}

export function registerShortcut(combo: string, handler: Handler): () => void {
  const stack = registry.get(combo) ?? []
  stack.push(handler)
  registry.set(combo, stack)
  return () => {
    const current = registry.get(combo)
    if (!current) return
    const index = current.lastIndexOf(handler)
    if (index >= 0) current.splice(index, 1)
    if (current.length === 0) registry.delete(combo)
  }
}

/** A shortcut active while the calling component is mounted. */
export function useShortcut(combo: string, handler: Handler): void {
  let unregister: (() => void) | null = null
  onMounted(() => {
    unregister = registerShortcut(combo, handler)
  })
  onBeforeUnmount(() => unregister?.())
}

/**
 * Runs the handler for this key press, if any; answers whether one ran. Bare keys ("/") do not fire
 * while the rep is typing in a field.
 */
export function dispatchShortcut(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.isComposing) return false
  const combo = comboOf(event)
  const bare = !combo.includes('+')
  if (bare && isEditable(event.target)) return false
  const stack = registry.get(combo)
  const handler = stack?.[stack.length - 1]
  if (!handler) return false
  event.preventDefault()
  handler(event)
  return true
}

/** The screen's search field, marked with data-search, focused and selected. Answers whether there was one. */
export function focusSearch(): boolean {
  const field = document.querySelector<HTMLInputElement>('main [data-search]')
  if (!field) return false
  field.focus()
  field.select?.()
  return true
}

/** A clock for relative times ("synced 3 min ago"), ticking every 15 seconds while mounted. */
export function useNow(intervalMs = 15_000): Ref<number> {
  const now = ref(Date.now())
  let timer: ReturnType<typeof setInterval> | undefined
  onMounted(() => {
    timer = setInterval(() => (now.value = Date.now()), intervalMs)
  })
  onBeforeUnmount(() => clearInterval(timer))
  return now
}
