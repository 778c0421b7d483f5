import { onBeforeUnmount, onMounted } from 'vue'

/** Every mounted editor's hand-over, so a profile switch can send what is being typed before it goes. */
const mounted = new Set<() => void>()

/**
 * What the rep is typing goes to the core on the way out: when the screen is left (unmount), when
 * the window reloads or closes, which unmounts nothing (pagehide, beforeunload), and before another
 * profile comes on screen (handOverEverything). `handOver` sends whatever is still waiting for its
 * debounce.
 */
export function useHandOverOnLeave(handOver: () => void): void {
  onMounted(() => {
    mounted.add(handOver)
    window.addEventListener('pagehide', handOver)
    window.addEventListener('beforeunload', handOver)
  })
  onBeforeUnmount(() => {
    mounted.delete(handOver)
    window.removeEventListener('pagehide', handOver)
    window.removeEventListener('beforeunload', handOver)
    handOver()
  })
}

/** Sends every editor's waiting typing now; the calls leave before any call made after this one. */
export function handOverEverything(): void {
  for (const handOver of mounted) handOver()
}
