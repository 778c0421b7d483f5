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
        first.value?.focus()
      } else if (!isOpen && element.open) {
        element.close()
        if (returnTo?.isConnected) returnTo.focus()
      }
    },
    { immediate: true },
  )
}
