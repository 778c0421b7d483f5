import { nextTick, onBeforeUnmount, watch, type ShallowRef } from 'vue'

/**
 * The element the rep was on before anything took focus away: the button that opens a dialog is often
 * disabled while its work runs (New order looks for open drafts first), and a disabled button loses
 * focus to the page before the dialog opens.
 */
let lastFocused: HTMLElement | null = null
let tracking = false
function trackFocus(): void {
  if (tracking) return
  tracking = true
  document.addEventListener('focusin', (event) => {
    if (event.target instanceof HTMLElement && !event.target.closest('dialog')) lastFocused = event.target
  })
}

/** What Tab stops on inside `root`, in order: shown, enabled, not taken out of the order. */
function tabStops(root: HTMLElement): HTMLElement[] {
  return [
    ...root.querySelectorAll<HTMLElement>(
      'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex], [contenteditable="true"]',
    ),
  ].filter((element) => {
    if (element.tabIndex < 0 || (element as HTMLButtonElement).disabled) return false
    if (element.closest('[inert]')) return false
    return element.checkVisibility({ visibilityProperty: true })
  })
}

/**
 * Tab and Shift+Tab go round the dialog's controls: a modal <dialog> makes the page behind it inert,
 * but Tab after its last control leaves the document (for the browser's own controls, which Electron
 * does not have), and the rep lands nowhere.
 */
function keepTabInside(event: KeyboardEvent): void {
  if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return
  const dialog = event.currentTarget as HTMLDialogElement
  const stops = tabStops(dialog)
  if (stops.length === 0) return
  const first = stops[0]!
  const last = stops[stops.length - 1]!
  const active = document.activeElement
  const outside = !(active instanceof HTMLElement) || active === dialog || !stops.includes(active)
  if (event.shiftKey && (active === first || outside)) {
    event.preventDefault()
    last.focus()
  } else if (!event.shiftKey && (active === last || outside)) {
    event.preventDefault()
    first.focus()
  }
}

/**
 * Drives a native modal <dialog> from an `open` prop: showModal gives Escape and keeps the page behind
 * it out of reach, Tab goes round its controls, `first` gets focus when it opens (the dialog's first
 * control when null), and focus goes back to where the rep was when it closes, by Escape or any of its
 * buttons, so the keyboard user lands where they left off. Every dialog of the window comes here.
 */
export function useModalDialog(
  open: () => boolean,
  dialog: Readonly<ShallowRef<HTMLDialogElement | null>>,
  first: Readonly<ShallowRef<HTMLElement | null>>,
): void {
  trackFocus()
  let returnTo: HTMLElement | null = null
  let listening: HTMLDialogElement | null = null
  const stopListening = () => {
    listening?.removeEventListener('keydown', keepTabInside)
    listening = null
  }
  watch(
    open,
    async (isOpen) => {
      // Read before the dialog's content renders: where the rep was is what the page has focused now,
      // or, when the opener lost focus on the way (disabled while busy), the last thing it had.
      const active = document.activeElement
      const before = active instanceof HTMLElement && active !== document.body ? active : lastFocused
      await nextTick()
      const element = dialog.value
      if (!element) return
      if (isOpen && !element.open) {
        returnTo = before
        element.showModal()
        element.addEventListener('keydown', keepTabInside)
        listening = element
        ;(first.value ?? tabStops(element)[0])?.focus({ preventScroll: true })
        // The <dialog> is kept between openings and keeps its scroll, and focusing a field may scroll
        // it too: at 320 px or 200% zoom that hides the title, which says what the dialog is about.
        element.scrollTop = 0
      } else if (!isOpen && element.open) {
        stopListening()
        element.close()
        const back = returnTo
        returnTo = null
        if (back?.isConnected) {
          back.focus()
          // Still disabled by the work that opened the dialog: focused once that is done.
          if (document.activeElement !== back) void nextTick(() => back.focus())
        }
      }
    },
    { immediate: true },
  )
  onBeforeUnmount(stopListening)
}
