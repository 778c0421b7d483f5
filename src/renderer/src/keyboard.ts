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
  // "?" is Shift+/ on most layouts and something else on others: the character is what the rep means.
  if (event.key === '?') return '?'
  const code = event.code
  if (/^Key[A-Z]$/.test(code)) return code.slice(3)
  if (/^Digit[0-9]$/.test(code)) return code.slice(5)
  if (code === 'Slash') return '/'
  return event.key.length === 1 ? event.key.toUpperCase() : event.key
}

function comboOf(event: KeyboardEvent): string {
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

function isEditable(target: EventTarget | null): boolean {
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

export interface ShortcutEntry {
  combo: string
  action: string
}

/**
 * Every shortcut, as the `?` overlay lists it. The frame's combos go through registerShortcut; the
 * screens' own keys are handled where they live (the catalog's list, the order's lines), so they are
 * named here too: a shortcut added anywhere belongs in this list.
 */
export const shortcutGroups: { name: string; shortcuts: ShortcutEntry[] }[] = [
  {
    name: 'Anywhere',
    shortcuts: [
      { combo: 'Alt+1', action: 'Customers' },
      { combo: 'Alt+2', action: 'Catalog' },
      { combo: 'Alt+3', action: 'Orders' },
      { combo: 'Alt+4', action: 'Outbox' },
      { combo: 'Alt+5', action: 'Settings' },
      { combo: 'Alt+6', action: 'Drafts' },
      { combo: 'Alt+7', action: 'Quotes' },
      { combo: 'Mod+K', action: 'Search this screen (or customers)' },
      { combo: '/', action: 'Search this screen (or customers)' },
      { combo: 'Mod+N', action: 'New order (on a customer’s page; elsewhere, find the customer first)' },
      { combo: 'Mod+Shift+N', action: 'New customer' },
      { combo: 'Mod+Shift+S', action: 'Sync now' },
      { combo: '?', action: 'Show these shortcuts' },
    ],
  },
  {
    name: 'Lists and search results',
    shortcuts: [
      { combo: 'ArrowDown', action: 'From the search field into the results' },
      { combo: 'ArrowUp', action: 'Previous row (↓: next)' },
      { combo: 'Home', action: 'First row (End: last; Ctrl+Home and Ctrl+End in the catalog)' },
      { combo: 'PageDown', action: 'Ten rows on in the catalog (PageUp: back)' },
      { combo: 'Enter', action: 'Open the first customer found, or the row in focus' },
    ],
  },
  {
    name: 'Catalog',
    shortcuts: [
      { combo: 'ArrowRight', action: 'Open a category (←: close it, or go to its parent)' },
      { combo: 'Esc', action: 'Close the item panel' },
    ],
  },
  {
    name: 'Order entry',
    shortcuts: [
      { combo: 'F2', action: 'Go to the SKU field to add lines (also Ctrl+L)' },
      { combo: 'Enter', action: 'In a quantity: save it' },
      { combo: 'Mod+Enter', action: 'Send the order' },
      { combo: 'Esc', action: 'Close the item suggestions' },
    ],
  },
]

/** A combo as the overlay shows it: "Ctrl+K", "⌘K", "Esc", "↓". */
export function comboLabel(combo: string): string {
  const arrows: Record<string, string> = { ArrowDown: '↓', ArrowUp: '↑', ArrowLeft: '←', ArrowRight: '→' }
  return arrows[combo] ?? shortcutLabel(combo)
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
