import { onBeforeUnmount, onMounted } from 'vue'

/**
 * What the rep is typing goes to the core on the way out: when the screen is left (unmount) and when
 * the window reloads or closes, which unmounts nothing (pagehide, beforeunload). `handOver` sends
 * whatever is still waiting for its debounce.
 */
export function useHandOverOnLeave(handOver: () => void): void {
  onMounted(() => {
    window.addEventListener('pagehide', handOver)
    window.addEventListener('beforeunload', handOver)
  })
  onBeforeUnmount(() => {
    window.removeEventListener('pagehide', handOver)
    window.removeEventListener('beforeunload', handOver)
    handOver()
  })
}
