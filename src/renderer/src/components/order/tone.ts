/**
 * The sound of a scan's outcome, as a handheld scanner gives it: one short high beep for a line
 * added, two low ones for a problem, so a rep looking at the customer's shelf hears the difference.
 * Best effort: with no audio device, or before the page may play sound, it stays silent.
 */
import { ref, watch } from 'vue'

let context: AudioContext | null = null

const soundsKey = 'satchel.scanSounds'
function readSounds(): boolean {
  try {
    return localStorage.getItem(soundsKey) !== 'off'
  } catch {
    return true
  }
}
/**
 * Whether scans sound (Settings → Scan sounds). The rep's and this laptop's, not a supplier
 * profile's: kept in the window's storage, the same whichever profile is on screen.
 */
export const scanSounds = ref(readSounds())
watch(scanSounds, (on) => {
  try {
    localStorage.setItem(soundsKey, on ? 'on' : 'off')
  } catch {
    // Storage unavailable: the choice holds for this session.
  }
})

export function playTone(kind: 'ok' | 'error'): void {
  if (!scanSounds.value) return
  try {
    context ??= new AudioContext()
    if (context.state === 'suspended') void context.resume().catch(() => undefined)
    const beeps =
      kind === 'ok'
        ? [{ at: 0, hz: 1046 }]
        : [
            { at: 0, hz: 220 },
            { at: 0.16, hz: 196 },
          ]
    for (const beep of beeps) {
      const oscillator = context.createOscillator()
      const gain = context.createGain()
      const start = context.currentTime + beep.at
      oscillator.type = kind === 'ok' ? 'sine' : 'square'
      oscillator.frequency.value = beep.hz
      gain.gain.setValueAtTime(0.06, start)
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.12)
      oscillator.connect(gain).connect(context.destination)
      oscillator.start(start)
      oscillator.stop(start + 0.13)
    }
  } catch {
    // No sound is better than a scan that fails for want of a speaker.
  }
}
