import { nextTick, watch, type ShallowRef } from 'vue'

/**
 * Drives a native modal <dialog> from an `open` prop: showModal traps focus and gives Escape, `first`
 * gets focus when it opens, and focus goes back to where the rep was when it closes, so the keyboard
 * user lands where they left off.
 */
export function useModalDialog(
  open: () => boolean,
  dialog: Readonly<ShallowRef<HTMLDialogElement | null>>,
  first: Readonly<ShallowRef<HTMLElement | null>>,
): void {
  let returnTo: HTMLElement | null = null
  watch(
    open,
    async (isOpen) => {
      await nextTick()
      const element = dialog.value
      if (!element) return
      if (isOpen && !element.open) {
        returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null
        element.showModal()
        first.value?.focus({ preventScroll: true })
        // The <dialog> is kept between openings and keeps its scroll, and focusing a field may scroll
        // it too: at 320 px or 200% zoom that hides the title, which says what the dialog is about.
        element.scrollTop = 0
      } else if (!isOpen && element.open) {
        element.close()
        if (returnTo?.isConnected) returnTo.focus()
      }
    },
    { immediate: true },
  )
}
